import { expect, it } from "vitest";
import { describeApi, type EventBody } from "../../../testing/api-suite.ts";

// GET /api/v1/events/{id}: one event in any state.

describeApi("GET /api/v1/events/{id}", (api) => {
  it("serves one event in any state, the same object as in the list", async () => {
    const listed = (await api.fast("/api/v1/events?status=live&sport=soccer", { key: api.starter.production.key })).body
      .data as EventBody[];
    const one = await api.fast("/api/v1/events/live-soc", { key: api.starter.production.key });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(listed.find((e) => e.id === "live-soc"));
    expect(Object.keys(one.body.data as object)).toEqual([
      "id",
      "sport",
      "competition",
      "home",
      "away",
      "status",
      "feed",
      "kickoff",
      "score",
      "clock",
      "period",
      "stats",
      "updated_at",
      "sandbox",
    ]);
    expect(one.body.data).toMatchObject({ score: { home: 1, away: 0 }, clock: "55:10", period: "2nd half" });
    for (const id of ["fin-soc", "canc-soc", "susp-soc"]) {
      expect((await api.fast(`/api/v1/events/${id}`, { key: api.starter.production.key })).status, id).toBe(200);
    }
  });

  it("answers 404 for an unknown event, 400 for an impossible id, 403 for a sport not covered", async () => {
    const unknown = await api.fast("/api/v1/events/no-such-event", { key: api.starter.production.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    const impossible = await api.fast("/api/v1/events/bad%20id", { key: api.starter.production.key });
    expect(impossible.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "id" }] });
    const other = await api.fast("/api/v1/events/live-cs2", { key: api.starter.production.key });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ code: "sport_not_covered" });
    const extra = await api.fast("/api/v1/events/live-soc?sport=soccer", { key: api.starter.production.key });
    expect(extra.body).toMatchObject({ code: "unknown_parameter" });
  });
});
