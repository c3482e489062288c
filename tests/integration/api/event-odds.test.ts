import { expect, it } from "vitest";
import { describeApi, sleep, type EventBody } from "../../../testing/api-suite.ts";

// GET /api/v1/events/{id}/odds: one event in any state with its markets.

type EventWithMarkets = EventBody & { markets: { id: string; type: string; status: string }[] };

describeApi("GET /api/v1/events/{id}/odds", (api) => {
  it("serves one event with its markets, the same object as on the board, in any state", async () => {
    const board = (await api.fast("/api/v1/odds?sport=soccer", { key: api.starter.production.key })).body
      .data as EventWithMarkets[];
    const one = await api.fast("/api/v1/events/live-soc/odds", { key: api.starter.production.key });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(board.find((e) => e.id === "live-soc"));
    expect((one.body.data as EventWithMarkets).markets.map((m) => m.id)).toEqual(["live-soc:mw", "live-soc:tot"]);
    // Not on the board (not in play), and still reachable here: an upcoming, a finished, a cancelled event.
    for (const id of ["up-ten", "fin-soc", "canc-soc"]) {
      const answer = await api.fast(`/api/v1/events/${id}/odds`, { key: api.starter.production.key });
      expect(answer.status, id).toBe(200);
      expect(answer.body.data, id).toMatchObject({ id, markets: [], sandbox: false });
    }
  });

  it("keeps the markets of one type; a type the sport does not offer leaves none", async () => {
    const totals = await api.fast("/api/v1/events/live-soc/odds?type=total", { key: api.starter.production.key });
    expect((totals.body.data as EventWithMarkets).markets.map((m) => m.id)).toEqual(["live-soc:tot"]);
    const sets = await api.fast("/api/v1/events/live-soc/odds?type=set_winner", { key: api.starter.production.key });
    expect(sets.body.data).toMatchObject({ id: "live-soc", markets: [] });
  });

  it("answers 404 for an unknown event, 403 for a sport not covered, 400 for an unknown type or parameter", async () => {
    const key = api.starter.production.key;
    expect((await api.fast("/api/v1/events/no-such-event/odds", { key })).body).toMatchObject({ code: "not_found" });
    expect((await api.fast("/api/v1/events/live-cs2/odds", { key })).body).toMatchObject({
      code: "sport_not_covered",
    });
    expect((await api.fast("/api/v1/events/live-soc/odds?type=first_scorer", { key })).body).toMatchObject({
      code: "invalid_parameter",
      errors: [{ param: "type" }],
    });
    expect((await api.fast("/api/v1/events/live-soc/odds?sport=soccer", { key })).body).toMatchObject({
      code: "unknown_parameter",
    });
  });

  it("serves the event as of a revision, and to a sandbox key as it was the delay ago", async () => {
    const now = await api.fast("/api/v1/events/live-soc/odds", { key: api.enterprise.production.key });
    const then = await api.fast(`/api/v1/events/live-soc/odds?as_of=${now.body.meta.revision as number}`, {
      key: api.enterprise.production.key,
    });
    expect(then.body.data).toEqual(now.body.data);
    expect(then.body.meta.revision).toBe(now.body.meta.revision);
    await sleep(Math.max(0, api.fixturesVisibleToSandboxAt - Date.now()));
    const sandbox = await api.sandboxPaced("/api/v1/events/live-soc/odds", { key: api.starter.sandbox.key });
    expect(sandbox.body.data).toMatchObject({ id: "live-soc", sandbox: true, markets: [{ id: "live-soc:mw" }, {}] });
    expect(sandbox.body.meta).toMatchObject({ sandbox: true });
    const other = await api.sandboxPaced("/api/v1/events/live-ten/odds", { key: api.starter.sandbox.key });
    expect(other.body).toMatchObject({ code: "sport_not_covered" });
  });
});
