import { expect, it } from "vitest";
import { SPORTS } from "../../../lib/db/schema/index.ts";
import { describeApi, UPCOMING, upcomingIds, type EventBody } from "../../../testing/api-suite.ts";

// GET /api/v1/events: the list, its filters, its order and its pages.

describeApi("GET /api/v1/events", (api) => {
  it("lists live and upcoming events of the key's sports by default, in kickoff then id order", async () => {
    const answer = await api.fast("/api/v1/events?limit=100", { key: api.starter.production.key });
    expect(answer.status).toBe(200);
    const events = answer.body.data as EventBody[];
    expect(events).toHaveLength(100);
    expect(new Set(events.map((e) => e.status))).toEqual(new Set(["live", "upcoming"]));
    expect(events.every((e) => ["soccer", "basketball", "tennis"].includes(e.sport))).toBe(true);
    expect(events.every((e) => e.sandbox === false)).toBe(true);
    const order = events.map((e) => [Date.parse(e.kickoff), e.id] as const);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
    expect(answer.body.meta.next_cursor).toEqual(expect.any(String));
  });

  it("filters by every sport and status value", async () => {
    const expected: Record<string, number> = { soccer: UPCOMING + 1, tennis: 2, basketball: 1, cs2: 1 };
    for (const sport of SPORTS) {
      const answer = await api.fast(`/api/v1/events?sport=${sport}&limit=100`, { key: api.enterprise.production.key });
      expect(answer.status).toBe(200);
      const events = answer.body.data as EventBody[];
      expect(events.every((e) => e.sport === sport)).toBe(true);
      const total = events.length + (answer.body.meta.next_cursor ? UPCOMING + 1 - 100 : 0);
      expect(total, sport).toBe(expected[sport] ?? 0);
    }
    const live = await api.fast("/api/v1/events?status=live", { key: api.enterprise.production.key });
    expect((live.body.data as EventBody[]).map((e) => e.id).sort()).toEqual([
      "live-bb",
      "live-cs2",
      "live-soc",
      "live-ten",
    ]);
    const upcoming = await api.fast("/api/v1/events?status=upcoming&sport=tennis", {
      key: api.enterprise.production.key,
    });
    expect((upcoming.body.data as EventBody[]).map((e) => e.id)).toEqual(["up-ten"]);
  });

  it("pages through more than 100 events without loss or repeat", async () => {
    for (const limit of [7, 100]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `sport=soccer&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const answer = await api.fast(`/api/v1/events?${query}`, { key: api.enterprise.production.key });
        expect(answer.status).toBe(200);
        const page = answer.body.data as EventBody[];
        expect(page.length).toBeLessThanOrEqual(limit);
        seen.push(...page.map((e) => e.id));
        cursor = answer.body.meta.next_cursor as string | null;
        pages++;
      } while (cursor);
      expect(pages).toBe(Math.ceil((UPCOMING + 1) / limit));
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.sort()).toEqual([...upcomingIds, "live-soc"].sort());
    }
  });

  it("defaults to 50 a page and refuses limits outside 1 to 100", async () => {
    const page = await api.fast("/api/v1/events", { key: api.enterprise.production.key });
    expect(page.body.data).toHaveLength(50);
    expect((await api.fast("/api/v1/events?limit=1", { key: api.enterprise.production.key })).body.data).toHaveLength(
      1,
    );
    for (const limit of ["0", "101", "abc", "2.5", ""]) {
      const answer = await api.fast(`/api/v1/events?limit=${limit}`, { key: api.enterprise.production.key });
      expect(answer.status, limit).toBe(400);
      expect(answer.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "limit" }] });
    }
  });

  it("takes a limit only in plain decimal digits, not every number JavaScript reads", async () => {
    const forms = [
      "0x10",
      "0X1A",
      "0b11",
      "0o17",
      "1e1",
      "5e0",
      "%205",
      "+5",
      "5%20",
      "%2B5",
      "05",
      "5.0",
      "5.",
      "%095",
    ];
    for (const limit of forms) {
      const answer = await api.fast(`/api/v1/events?limit=${limit}`, { key: api.enterprise.production.key });
      expect(answer.status, limit).toBe(400);
      expect(answer.body, limit).toMatchObject({
        code: "invalid_parameter",
        detail: "limit: must be a whole number from 1 to 100, in decimal digits",
        errors: [{ param: "limit", message: "must be a whole number from 1 to 100, in decimal digits" }],
      });
    }
    expect((await api.fast("/api/v1/events?limit=abc", { key: api.enterprise.production.key })).body).toMatchObject({
      errors: [{ param: "limit", message: "must be a whole number from 1 to 100, in decimal digits" }],
    });
    expect((await api.fast("/api/v1/events?limit=10", { key: api.enterprise.production.key })).body.data).toHaveLength(
      10,
    );
  });

  it("refuses a cursor it did not give out, a bad value, a repeated or an unknown parameter", async () => {
    const cases: [string, string, string][] = [
      ["cursor=garbage", "invalid_parameter", "cursor"],
      ["status=finished", "invalid_parameter", "status"],
      ["sport=curling", "invalid_parameter", "sport"],
      ["sport=soccer&sport=tennis", "invalid_parameter", "sport"],
      ["page=2", "unknown_parameter", "page"],
      ["status=live&offset=10", "unknown_parameter", "offset"],
    ];
    for (const [query, code, param] of cases) {
      const answer = await api.fast(`/api/v1/events?${query}`, { key: api.enterprise.production.key });
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code, errors: [{ param }] });
    }
  });

  it("answers 403 for a sport the plan does not cover", async () => {
    const answer = await api.fast("/api/v1/events?sport=cs2", { key: api.starter.production.key });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ code: "sport_not_covered" });
  });
});
