import { describe, expect, it } from "vitest";
import {
  boardSummary,
  changesSummary,
  eventLine,
  eventsSummary,
  lineupsSummary,
  marketHistorySummary,
} from "./summaries.ts";

const META = { sandbox: false, delay_seconds: 0, requests_used: 3, requests_quota: 1000, revision: 900 };
const SANDBOX = { ...META, sandbox: true, delay_seconds: 60 };

const event = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  sport: "soccer",
  competition: "League",
  home: `${id} H`,
  away: `${id} A`,
  status,
  kickoff: "2026-11-21T14:30:00.000Z",
  score: { home: 2, away: 1 },
  clock: "80:00",
  period: "2nd half",
  ...extra,
});

describe("the tools' summaries", () => {
  it("give the score of a started event and the kickoff of one to come", () => {
    expect(eventLine(event("e1", "live"))).toBe("e1 H 2-1 e1 A (soccer, League; live, 2nd half 80:00) [e1]");
    expect(eventLine(event("e2", "upcoming"))).toBe(
      "e2 H v e2 A (soccer, League; upcoming, kickoff 2026-11-21T14:30:00.000Z) [e2]",
    );
  });

  it("say how to get the next page, and name a few events of a long one", () => {
    const events = Array.from({ length: 7 }, (_, i) => event(`e${i}`, i < 2 ? "live" : "upcoming"));
    const text = eventsSummary({ data: events, meta: { ...META, next_cursor: "abc" } });
    expect(text).toMatch(/^7 events on this page \(2 live, 5 upcoming\): e0 H/);
    expect(text).toContain('; and 2 more. More: call again with cursor="abc".');
    expect(eventsSummary({ data: [], meta: { ...META, next_cursor: null } })).toBe(
      "0 events on this page (0 live, 0 upcoming). That is the last page. Revision 900, real time; request 3 of 1000 this month.",
    );
  });

  it("say that a sandbox key's data is the feed of its delay ago", () => {
    const market = {
      id: "m",
      name: "Match result",
      status: "open",
      line: null,
      outcomes: [
        { name: "Home", price: 1.5, status: "active" },
        { name: "Away", price: 2.6, status: "suspended" },
      ],
    };
    expect(boardSummary({ data: [event("e1", "live", { markets: [market] })], meta: SANDBOX })).toBe(
      "1 event in play with 1 market: e1 H 2-1 e1 A (soccer, League; live, 2nd half 80:00) [e1]: Match result (open): " +
        "Home 1.5, Away suspended. Revision 900, the feed as it was 60 s ago (sandbox); request 3 of 1000 this month.",
    );
  });

  it("tell the next since, lineups not yet published, and a market's first and last price", () => {
    expect(changesSummary({ data: [], meta: { ...META, next_since: 900 } })).toMatch(
      /^Nothing changed yet; call again with since=900 to go on\./,
    );
    const changes = [
      { id: 901, event: "markets", data: { event_id: "e1", markets: [] } },
      { id: 902, event: "event", data: { id: "e2" } },
    ];
    expect(changesSummary({ data: changes, meta: { ...META, next_since: 902 } })).toMatch(
      /^2 changes \(1 to events, 1 to markets\) of 2 events, through revision 902; call again with since=902/,
    );
    expect(lineupsSummary({ data: { event_id: "e1", home: [], away: [] }, meta: META })).toContain("not published yet");
    const point = (at: string, prices: number[]) => ({
      at,
      status: "open",
      outcomes: prices.map((price, i) => ({ id: `o${i}`, price })),
    });
    expect(
      marketHistorySummary({
        data: { event_id: "e1", market_id: "m", points: [point("t1", [1.8, 2.1]), point("t2", [1.5, 2.6])] },
        meta: META,
      }),
    ).toMatch(/^Market m of e1: 2 states from t1 \(1.8 \/ 2.1, open\) to t2 \(1.5 \/ 2.6, open\)\./);
  });
});
