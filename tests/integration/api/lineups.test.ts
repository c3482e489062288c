import { expect, it } from "vitest";
import { describeApi } from "../../../testing/api-suite.ts";

// GET /api/v1/events/{id}/lineups.

describeApi("GET /api/v1/events/{id}/lineups", (api) => {
  it("serves both sides once published, empty sides before", async () => {
    const published = await api.fast("/api/v1/events/up-000/lineups", { key: api.starter.production.key });
    expect(published.body.data).toEqual({
      event_id: "up-000",
      home: [
        { number: 1, name: "A. Keeper", position: "GK" },
        { number: 9, name: "B. Striker", position: "ST" },
      ],
      away: [{ number: 10, name: "C. Playmaker", position: "CAM" }],
      sandbox: false,
    });
    const pending = await api.fast("/api/v1/events/up-001/lineups", { key: api.starter.production.key });
    expect(pending.body.data).toEqual({ event_id: "up-001", home: [], away: [], sandbox: false });
    expect((await api.fast("/api/v1/events/nope/lineups", { key: api.starter.production.key })).status).toBe(404);
    expect((await api.fast("/api/v1/events/live-cs2/lineups", { key: api.starter.production.key })).status).toBe(403);
  });
});
