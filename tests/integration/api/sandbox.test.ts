import { expect, it } from "vitest";
import { ingest } from "../../../testing/feed.ts";
import { creation, DELAY_SECONDS, describeApi, kickoff, sleep, type EventBody } from "../../../testing/api-suite.ts";

// The sandbox view: one sport, and the feed as it was the delay ago.

describeApi(
  "the sandbox view",
  (api) => {
    it("covers the key's one sport only", async () => {
      await sleep(Math.max(0, api.fixturesVisibleToSandboxAt - Date.now()));
      const list = await api.sandboxPaced("/api/v1/events?limit=100", { key: api.starter.sandbox.key });
      expect((list.body.data as EventBody[]).every((e) => e.sport === "soccer" && e.sandbox === true)).toBe(true);
      expect(list.body.meta).toMatchObject({ sandbox: true, delay_seconds: DELAY_SECONDS });
      const other = await api.sandboxPaced("/api/v1/events?sport=tennis", { key: api.starter.sandbox.key });
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({ code: "sport_not_covered" });
      expect((await api.sandboxPaced("/api/v1/events/live-ten", { key: api.starter.sandbox.key })).status).toBe(403);
      const odds = await api.sandboxPaced("/api/v1/odds", { key: api.starter.sandbox.key });
      expect((odds.body.data as EventBody[]).map((e) => e.id)).toEqual(["susp-soc", "live-soc"]);
    });

    it(`sees an event as it was ${DELAY_SECONDS} s earlier, while a production key sees the present`, async () => {
      await sleep(Math.max(0, api.fixturesVisibleToSandboxAt - Date.now()));
      const sandboxBefore = await api.sandboxPaced("/api/v1/events/up-002", { key: api.starter.sandbox.key });
      expect(sandboxBefore.body.data).toMatchObject({ status: "upcoming", sandbox: true });

      const sentAt = Date.now();
      await ingest(api.server.url, [
        { event_id: "up-002", sequence: 2, event: { status: "live", clock: "00:01", period: "1st half" } },
      ]);
      let production: EventBody | undefined;
      for (let i = 0; i < 40 && production?.status !== "live"; i++) {
        production = (await api.fast("/api/v1/events/up-002", { key: api.starter.production.key })).body
          .data as EventBody;
        if (production.status !== "live") await sleep(25);
      }
      expect(production).toMatchObject({ status: "live", sandbox: false });

      // The sandbox sees the change only once it is DELAY_SECONDS old, never earlier.
      let seenLiveAt = 0;
      while (Date.now() - sentAt < (DELAY_SECONDS + 3) * 1000) {
        const answer = await api.sandboxPaced("/api/v1/events/up-002", { key: api.starter.sandbox.key });
        const status = (answer.body.data as EventBody).status;
        if (status === "live") {
          seenLiveAt = Date.now();
          break;
        }
        expect(status).toBe("upcoming");
      }
      expect(seenLiveAt).toBeGreaterThan(0);
      expect(seenLiveAt - sentAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
      const list = await api.sandboxPaced("/api/v1/events?status=live", { key: api.starter.sandbox.key });
      expect((list.body.data as EventBody[]).map((e) => e.id)).toContain("up-002");
    });

    it("does not know an event created less than the delay ago", async () => {
      await ingest(api.server.url, [creation("brand-new", "soccer", "upcoming", kickoff(1_000))]);
      await sleep(300);
      expect((await api.fast("/api/v1/events/brand-new", { key: api.starter.production.key })).status).toBe(200);
      const answer = await api.sandboxPaced("/api/v1/events/brand-new", { key: api.starter.sandbox.key });
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: "not_found" });
    });
  },
  { nodeOnly: true },
);
