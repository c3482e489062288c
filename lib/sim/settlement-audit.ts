import type { Sport } from "../db/schema/index.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import type { Figure } from "./realism.ts";
import { fateOf, SimulatedEvent, type EventPlan, type Fate } from "./simulated-event.ts";

// The settlement of simulated events checked from what the feed receives, event after event: the
// settlement figures of `npm run bench:realism`. Each check counts the events (or markets) that
// break a rule; a right simulator counts none.

type Market = NonNullable<FeedUpdate["markets"]>[number];

/** What can go wrong, each counted over every event audited. */
export const SETTLEMENT_CHECKS = {
  unsettled: "markets still open or suspended when the event is over",
  resettled: "markets changed after they were settled",
  early: "match results settled before the final whistle",
  perGoal: "finished events whose goals (or rounds) do not each settle their own market",
  notVoid: "markets of abandoned or cancelled events settled other than void by the ending",
} as const;
export type SettlementCheck = keyof typeof SETTLEMENT_CHECKS;

export type SettlementAudit = {
  events: number;
  byFate: Record<Fate, number>;
  markets: number;
  problems: Record<SettlementCheck, number>;
};

const plan = (sport: Sport, seed: string): EventPlan => ({
  id: `audit-${sport}-${seed}`,
  sport,
  competition: "Audit League",
  home: "Home",
  away: "Away",
  kickoffMs: 0,
  speed: 1,
  seed,
});

/** Every update of an event from its announcement to its end, looked at each simulated minute. */
function updatesOf(event: SimulatedEvent): FeedUpdate[] {
  const updates: FeedUpdate[] = [];
  for (let t = -4 * 3600_000; !event.done; t += 60_000) {
    updates.push(...event.advanceTo(t));
    if (t > 16 * 3600_000) throw new Error(`${event.plan.id} did not end`);
  }
  return updates;
}

/** The problems of one event's updates, counted into `audit`. */
export function auditEvent(sport: Sport, updates: FeedUpdate[], audit: SettlementAudit): void {
  const last = new Map<string, Market>();
  const resettled = new Set<string>();
  let status: string = "upcoming";
  let score = { home: 0, away: 0 };
  for (const update of updates) {
    const before = status;
    if (update.event) {
      status = update.event.status ?? status;
      if (update.event.score) score = update.event.score;
    }
    const ending = before !== status && (status === "finished" || status === "cancelled");
    for (const market of update.markets ?? []) {
      const previous = last.get(market.id);
      if (previous?.status === "settled") {
        if (JSON.stringify(previous) !== JSON.stringify(market)) resettled.add(market.id);
        continue;
      }
      last.set(market.id, market);
      if (market.status !== "settled") continue;
      if (market.type === "match_winner" && !ending) audit.problems.early++;
      const voided = market.outcomes.every((o) => o.status === "void");
      if (ending && status === "cancelled" && !voided) audit.problems.notVoid++;
    }
  }
  audit.markets += last.size;
  audit.problems.resettled += resettled.size;
  for (const market of last.values()) if (market.status !== "settled") audit.problems.unsettled++;
  if (status !== "finished") return;
  // Each goal (or CS2 round) settles a market of its own, won by its scorer, and one more ends "No goal".
  const settled = [...last.values()];
  if (sport === "soccer" || sport === "ice-hockey") {
    const won = (key: string) =>
      settled.filter(
        (m) => m.type === "next_goal" && m.outcomes.some((o) => o.id.endsWith(`:${key}`) && o.status === "won"),
      ).length;
    if (won("home") !== score.home || won("away") !== score.away || won("none") !== 1) audit.problems.perGoal++;
  } else if (sport === "cs2") {
    const rounds = settled.filter((m) => m.type === "next_round");
    const oneWinner = rounds.every((m) => m.outcomes.filter((o) => o.status === "won").length === 1);
    if (!oneWinner || rounds.length < 13 * (score.home + score.away)) audit.problems.perGoal++;
  }
}

/**
 * `count` events of a sport played to their end through the simulator, each with the fate its
 * seed gives it (about 1 % abandoned, 1 % cancelled), and `abandoned` more chosen to be abandoned.
 */
export function auditSettlement(sport: Sport, count: number, abandoned: number, seed = "audit"): SettlementAudit {
  const audit: SettlementAudit = {
    events: 0,
    byFate: { normal: 0, postponed: 0, cancelled: 0, abandoned: 0 },
    markets: 0,
    problems: { unsettled: 0, resettled: 0, early: 0, perGoal: 0, notVoid: 0 },
  };
  const events: SimulatedEvent[] = [];
  for (let i = 0; i < count; i++) events.push(new SimulatedEvent(plan(sport, `${seed}-${sport}-${i}`)));
  for (let i = 0, found = 0; found < abandoned && i < 100_000; i++) {
    const chosen = plan(sport, `${seed}-${sport}-abandoned-${i}`);
    if (fateOf(chosen) !== "abandoned") continue;
    events.push(new SimulatedEvent(chosen));
    found++;
  }
  for (const event of events) {
    audit.events++;
    audit.byFate[event.fate]++;
    auditEvent(sport, updatesOf(event), audit);
  }
  return audit;
}

/** Each check as a bench figure: none may fail, in every event played. */
export function settlementFigures(audit: SettlementAudit): Figure[] {
  const played = `every market of ${audit.events} events (${audit.byFate.abandoned} abandoned, ${audit.byFate.cancelled} cancelled)`;
  return (Object.keys(SETTLEMENT_CHECKS) as SettlementCheck[]).map((check) => ({
    name: `settlement: ${check}`,
    measured: audit.problems[check],
    reference: 0,
    tolerance: 0,
    source: `${SETTLEMENT_CHECKS[check]}, over ${played}`,
  }));
}
