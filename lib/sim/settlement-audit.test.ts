import { describe, expect, it } from "vitest";
import type { FeedUpdate } from "../feed/schemas.ts";
import { auditEvent, auditSettlement, type SettlementAudit } from "./settlement-audit.ts";
import { runToEnd } from "../../testing/sim-events.ts";
import { SimulatedEvent } from "./simulated-event.ts";
import { simPlan } from "../../testing/sim-events.ts";

const empty = (): SettlementAudit => ({
  events: 0,
  byFate: { normal: 0, postponed: 0, cancelled: 0, abandoned: 0 },
  markets: 0,
  problems: { unsettled: 0, resettled: 0, early: 0, perGoal: 0, notVoid: 0 },
});

/** A played-out soccer event with at least one goal, its updates as the feed receives them. */
function soccerUpdates(): FeedUpdate[] {
  for (let i = 0; ; i++) {
    const event = new SimulatedEvent(simPlan("soccer", `audit-${i}`));
    if (event.fate !== "normal") continue;
    const updates = runToEnd(event, 60_000);
    const final = updates.findLast((u) => u.event)!.event!;
    if (final.score!.home + final.score!.away > 0) return updates;
  }
}
const copy = (updates: FeedUpdate[]) => JSON.parse(JSON.stringify(updates)) as FeedUpdate[];

describe("the settlement audit of bench:realism", () => {
  const updates = soccerUpdates();

  it("finds nothing wrong in events played through the simulator, abandoned ones included", () => {
    const audit = auditSettlement("ice-hockey", 6, 2, "unit");
    expect(audit.byFate.abandoned).toBeGreaterThanOrEqual(2);
    expect(audit.markets).toBeGreaterThan(6 * 4);
    expect(audit.problems).toEqual(empty().problems);
    const clean = empty();
    auditEvent("soccer", updates, clean);
    expect(clean.problems).toEqual(empty().problems);
  });

  it("counts a result settled before the whistle, a market left open and one settled twice", () => {
    const doctored = copy(updates);
    const firstLive = doctored.findIndex((u) => u.event?.status === "live");
    const result = doctored.findLast((u) =>
      u.markets?.some((m) => m.type === "match_winner" && m.status === "settled"),
    )!;
    const settled = result.markets!.find((m) => m.type === "match_winner")!;
    // The same settlement sent early, while the game is live: early, and then changed after it.
    doctored[firstLive]!.markets = [...(doctored[firstLive]!.markets ?? []), { ...settled, name: "early" }];
    // A market that never settles.
    doctored.at(-1)!.markets!.push({ ...settled, id: "left-open", status: "open" });
    const audit = empty();
    auditEvent("soccer", doctored, audit);
    expect(audit.problems.early).toBe(1);
    expect(audit.problems.resettled).toBe(1);
    expect(audit.problems.unsettled).toBe(1);
  });

  it("counts a goal whose next-goal market never settled, and an ending that settles other than void", () => {
    const missing = copy(updates);
    for (const u of missing)
      u.markets = u.markets?.filter((m) => !m.id.endsWith(":next_goal:1") || m.status !== "settled");
    const audit = empty();
    auditEvent("soccer", missing, audit);
    expect(audit.problems.perGoal).toBe(1);

    const cancelled = copy(updates);
    const ending = cancelled.findLast((u) => u.event?.status === "finished")!;
    ending.event!.status = "cancelled";
    const notVoid = empty();
    auditEvent("soccer", cancelled, notVoid);
    expect(notVoid.problems.notVoid).toBeGreaterThan(0);
  });
});
