import { expect, it } from "vitest";
import { describeApi, type EventBody } from "../../../testing/api-suite.ts";

// GET /api/v1/odds: the markets of every event in play, filtered, compressed when asked.

describeApi("GET /api/v1/odds", (api) => {
  type Board = (EventBody & { markets: { id: string; type: string; status: string }[] })[];

  it("serves every event in play with its markets, suspended ones included", async () => {
    const answer = await api.fast("/api/v1/odds", { key: api.enterprise.production.key });
    expect(answer.status).toBe(200);
    const board = answer.body.data as Board;
    expect(board.map((e) => e.id)).toEqual(["susp-soc", "live-soc", "live-ten", "live-bb", "live-cs2"]);
    expect(board.find((e) => e.id === "live-soc")!.markets.map((m) => m.id)).toEqual(["live-soc:mw", "live-soc:tot"]);
    expect(board.find((e) => e.id === "susp-soc")!.markets.every((m) => m.status === "suspended")).toBe(true);
    expect(answer.body.meta).not.toHaveProperty("next_cursor");
  });

  it("filters by sport and by market type; a type a sport does not offer leaves its events without markets", async () => {
    const tennis = (await api.fast("/api/v1/odds?sport=tennis", { key: api.enterprise.production.key })).body
      .data as Board;
    expect(tennis.map((e) => e.id)).toEqual(["live-ten"]);
    const sets = (await api.fast("/api/v1/odds?type=set_winner", { key: api.starter.production.key })).body
      .data as Board;
    expect(sets.map((e) => e.id)).toEqual(["susp-soc", "live-soc", "live-ten", "live-bb"]);
    expect(sets.find((e) => e.id === "live-ten")!.markets.map((m) => m.type)).toEqual(["set_winner"]);
    expect(sets.find((e) => e.id === "live-soc")!.markets).toEqual([]);
    const bogus = await api.fast("/api/v1/odds?type=first_scorer", { key: api.starter.production.key });
    expect(bogus.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "type" }] });
    expect((await api.fast("/api/v1/odds?sport=cs2", { key: api.starter.production.key })).status).toBe(403);
    expect((await api.fast("/api/v1/odds?limit=5", { key: api.starter.production.key })).body).toMatchObject({
      code: "unknown_parameter",
    });
  });

  it("is gzipped for clients that accept it, and plain otherwise", async () => {
    const gzipped = await api.fast("/api/v1/odds", {
      key: api.enterprise.production.key,
      headers: { "accept-encoding": "gzip" },
    });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    const plain = await api.fast("/api/v1/odds", {
      key: api.enterprise.production.key,
      headers: { "accept-encoding": "identity" },
    });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(gzipped.body.data).toEqual(plain.body.data);
    // An explicit coding wins over `*`, wherever each stands (RFC 9110 12.5.3).
    for (const [acceptEncoding, coding] of [
      ["*;q=0, gzip", "gzip"],
      ["gzip;q=0, *", null],
      ["br, *;q=0.5", "gzip"],
      ["br;q=1, gzip;q=0, *;q=1", null],
    ] as const) {
      const answer = await api.fast("/api/v1/odds", {
        key: api.enterprise.production.key,
        headers: { "accept-encoding": acceptEncoding },
      });
      // (Through Next, its own compression may pick deflate where `*` allows it.)
      if (coding) expect(answer.headers.get("content-encoding"), acceptEncoding).toBe(coding);
      else expect(answer.headers.get("content-encoding"), acceptEncoding).not.toBe("gzip");
    }
  });
});
