import { describe, expect, it } from "vitest";
import {
  applyUpdates,
  checkLine,
  sequenceDecision,
  updateDigest,
  type Current,
  type LineResult,
} from "./ingest-rules.ts";
import type { FeedUpdate } from "./schemas.ts";

const AT = "2026-11-21T15:00:00.000Z";

const creation = (id: string, sequence = 1): FeedUpdate => ({
  event_id: id,
  sequence,
  event: {
    sport: "soccer",
    competition: "Provider Cup",
    home: "Harbour Town",
    away: "River City",
    status: "upcoming",
    feed: "official",
    kickoff: "2026-11-21T18:00:00Z",
  },
});

const market = (id: string, price: number, type = "match_winner") => ({
  id,
  type,
  name: "Match result",
  line: null,
  status: "open",
  outcomes: [
    { id: `${id}-h`, name: "Harbour Town", price, status: "active" },
    { id: `${id}-a`, name: "River City", price: 4.1, status: "active" },
  ],
});

/** Applies updates, each checked as a line would be, to `current`; returns each line's result. */
function apply(current: Map<string, Current>, updates: unknown[], lastRevision = 100) {
  const lines = updates.map((value, i) => ({ line: i + 1, value }));
  const results: LineResult[] = new Array(lines.length);
  const valid = lines.flatMap((line, index) => {
    const checked = checkLine(line);
    if ("rejected" in checked) {
      results[index] = checked.rejected;
      return [];
    }
    return [{ index, update: checked.update, digest: checked.digest }];
  });
  const applied = applyUpdates(current, valid, lines, lastRevision, AT, results);
  return { ...applied, results };
}

describe("a line of a batch", () => {
  it("that is not JSON is rejected as invalid_json", () => {
    expect(checkLine({ line: 3, error: "Unexpected token" })).toEqual({
      rejected: {
        line: 3,
        event_id: null,
        sequence: null,
        status: "rejected",
        code: "invalid_json",
        message: "Not valid JSON: Unexpected token",
      },
    });
  });

  it("that is no valid update is rejected as invalid_update, naming each path, with what it could read", () => {
    const checked = checkLine({ line: 1, value: { event_id: "ev-1", sequence: 0 } });
    expect(checked).toMatchObject({
      rejected: { line: 1, event_id: "ev-1", sequence: 0, status: "rejected", code: "invalid_update" },
    });
    const rejected = (checked as { rejected: LineResult }).rejected;
    expect(rejected.errors!.map((e) => e.path)).toContain("sequence");
    expect(rejected.message).toContain("sequence: ");
  });

  it("that is valid carries its update and the digest of its content", () => {
    expect(checkLine({ line: 1, value: creation("ev-1") })).toEqual({
      update: creation("ev-1"),
      digest: updateDigest(creation("ev-1")),
    });
  });

  it("has the digest of the same update sent with its fields in another order", () => {
    const { event, ...rest } = creation("ev-1");
    const reordered = { event: Object.fromEntries(Object.entries(event!).reverse()), ...rest };
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(creation("ev-1")));
    const digest = (value: unknown) => (checkLine({ line: 1, value }) as { digest: string }).digest;
    expect(digest(reordered)).toBe(digest(creation("ev-1")));
    expect(digest({ ...creation("ev-1"), sequence: 2 })).not.toBe(digest(creation("ev-1")));
  });
});

describe("an update's sequence", () => {
  // The event is at sequence 3; sequences 2 and 3 were applied with the contents digested "two" and "three".
  const event = {
    sequence: 3,
    applied: new Map([
      [2, { digest: "two", revision: 20 }],
      [3, { digest: "three", revision: 30 }],
    ]),
  };
  const cases: [string, typeof event | undefined, number, string, ReturnType<typeof sequenceDecision>][] = [
    ["creates an event that is not there yet", undefined, 7, "any", "apply"],
    ["follows the event's", event, 4, "four", "apply"],
    ["skips ahead of the event's", event, 9, "nine", "apply"],
    ["repeats the event's, with its content", event, 3, "three", "duplicate"],
    ["repeats an earlier one, with its content", event, 2, "two", "duplicate"],
    ["repeats the event's, with other content", event, 3, "other", "stale"],
    ["repeats an earlier one, with other content", event, 2, "other", "stale"],
    ["is below the event's and not remembered", event, 1, "one", "stale"],
  ];
  it.each(cases)("%s", (_, before, sequence, digest, decision) => {
    expect(sequenceDecision(before, sequence, digest)).toBe(decision);
  });
});

describe("a batch's updates", () => {
  it("create an event, number a revision per kind of state changed, and answer a repeat as a duplicate", () => {
    const current = new Map<string, Current>();
    const { results, revisions, revision, changes } = apply(current, [
      { ...creation("ev-1"), markets: [market("m1", 2.1)] },
      { ...creation("ev-1"), markets: [market("m1", 2.1)] },
    ]);
    expect(results.map((r) => [r.status, r.revision])).toEqual([
      ["applied", 102],
      ["duplicate", 102],
    ]);
    expect(revisions.map((r) => [r.revision, r.kind, r.recorded_at])).toEqual([
      [101, "event", AT],
      [102, "markets", AT],
    ]);
    expect(revision).toBe(102);
    expect(changes).toEqual([{ eventId: "ev-1", revision: 102, kinds: ["event", "markets"] }]);
    expect(current.get("ev-1")).toMatchObject({
      sequence: 1,
      revision: 102,
      dirty: true,
      state: { id: "ev-1", score: { home: 0, away: 0 }, clock: "", period: "", stats: [], updated_at: AT },
    });
  });

  it("resent whole, answer each line applied before as a duplicate with its own revision, and apply nothing", () => {
    const current = new Map<string, Current>();
    const batch = [
      creation("ev-1"),
      { event_id: "ev-1", sequence: 2, event: { status: "live" } },
      { event_id: "ev-1", sequence: 3, markets: [market("m1", 2.1)] },
    ];
    const first = apply(current, batch);
    expect(first.results.map((r) => [r.status, r.revision])).toEqual([
      ["applied", 101],
      ["applied", 102],
      ["applied", 103],
    ]);
    expect(first.applied.map((l) => [l.sequence, l.revision])).toEqual([
      [1, 101],
      [2, 102],
      [3, 103],
    ]);
    const state = structuredClone(current.get("ev-1"));
    const resent = apply(current, batch, 103);
    expect(resent.results.map((r) => [r.status, r.revision])).toEqual([
      ["duplicate", 101],
      ["duplicate", 102],
      ["duplicate", 103],
    ]);
    expect(resent.revisions).toEqual([]);
    expect(resent.applied).toEqual([]);
    expect(current.get("ev-1")).toEqual(state);
  });

  it("refuse an old sequence with content other than what was applied with it, as stale", () => {
    const current = new Map<string, Current>();
    apply(current, [creation("ev-1"), { event_id: "ev-1", sequence: 2, event: { status: "live" } }]);
    const { results } = apply(current, [
      { event_id: "ev-1", sequence: 2, event: { clock: "10:00" } },
      { event_id: "ev-1", sequence: 1, event: { clock: "09:00" } },
    ]);
    expect(results).toMatchObject([
      {
        status: "rejected",
        code: "stale_sequence",
        message: expect.stringMatching(/applied sequence 2 already, with other content/),
      },
      { status: "rejected", code: "stale_sequence" },
    ]);
  });

  it("merge markets by id, keeping the others, and add new ones last", () => {
    const current = new Map<string, Current>();
    apply(current, [{ ...creation("ev-1"), markets: [market("m1", 2.1), market("m2", 1.5, "total")] }]);
    const { results } = apply(
      current,
      [{ event_id: "ev-1", sequence: 2, markets: [market("m3", 3), market("m1", 2.5)] }],
      102,
    );
    expect(results[0]).toMatchObject({ status: "applied", revision: 103 });
    expect(current.get("ev-1")!.markets.map((m) => [m.id, m.outcomes[0]!.price])).toEqual([
      ["m1", 2.5],
      ["m2", 1.5],
      ["m3", 3],
    ]);
  });

  it("that change nothing are applied without a revision", () => {
    const current = new Map<string, Current>();
    apply(current, [creation("ev-1")]);
    const { results, revisions, changes } = apply(current, [
      { event_id: "ev-1", sequence: 2, event: { status: "upcoming" } },
    ]);
    expect(results[0]).toMatchObject({ status: "applied", revision: 101 });
    expect(revisions).toEqual([]);
    expect(changes).toEqual([]);
  });

  const rejections: [string, unknown, string][] = [
    ["a stale sequence", { event_id: "ev-1", sequence: 1, event: { clock: "12:00" } }, "stale_sequence"],
    ["an event it does not create", { event_id: "ev-2", sequence: 1, event: { clock: "1" } }, "unknown_event"],
    ["another sport", { event_id: "ev-1", sequence: 9, event: { sport: "tennis" } }, "sport_mismatch"],
    [
      "a status the event cannot move to",
      { event_id: "ev-1", sequence: 9, event: { status: "finished" } },
      "invalid_transition",
    ],
    ["one side on both", { event_id: "ev-1", sequence: 9, event: { away: "Harbour Town" } }, "invalid_update"],
    [
      "a market its sport does not offer",
      { event_id: "ev-1", sequence: 9, markets: [market("m9", 2, "set_winner")] },
      "market_type_not_offered",
    ],
    ["a market twice", { event_id: "ev-1", sequence: 9, markets: [market("m9", 2), market("m9", 2)] }, "duplicate_id"],
    [
      "two outcomes with one id",
      {
        event_id: "ev-1",
        sequence: 9,
        markets: [{ ...market("m9", 2), outcomes: [market("m9", 2).outcomes[0], market("m9", 2).outcomes[0]] }],
      },
      "duplicate_id",
    ],
  ];
  it.each(rejections)("with %s are rejected and change nothing", (_, update, code) => {
    const current = new Map<string, Current>();
    apply(current, [{ ...creation("ev-1", 5), event: { ...creation("ev-1").event, status: "upcoming" } }]);
    const before = structuredClone(current.get("ev-1"));
    const { results, revisions } = apply(current, [update]);
    expect(results[0]).toMatchObject({ status: "rejected", code });
    expect(revisions).toEqual([]);
    expect(current.get("ev-1")).toEqual(before);
  });
});
