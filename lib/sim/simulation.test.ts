import { describe, expect, it } from "vitest";
import { SPORTS, type Sport } from "../db/schema/index.ts";
import { feedUpdateSchema, type FeedUpdate } from "../feed/schemas.ts";
import { canMove } from "../feed/status.ts";
import { SPORT_MARKET_TYPES } from "../sports.ts";
import { LADDER, overround } from "./ladder.ts";
import { runToEnd, simPlan as plan } from "../../testing/sim-events.ts";
import { SimulatedEvent } from "./simulated-event.ts";
import { SUSPENSION } from "./suspensions.ts";

type EventFields = NonNullable<FeedUpdate["event"]>;

const seconds = (clock: string) => {
  const [m, s] = clock.split(":").map(Number);
  return m! * 60 + s!;
};
const statOf = (event: EventFields, label: string) => event.stats!.find((s) => s.label === label);
const sideTotals = (event: EventFields, label: string): [number, number] => {
  const stat = statOf(event, label);
  if (!stat) throw new Error(`no ${label} statistic`);
  return [stat.home, stat.away];
};

/** The statistics each sport shows must add up to its score. */
function checkStatsAgree(sport: Sport, event: EventFields): void {
  const score = [event.score!.home, event.score!.away];
  if (event.status === "upcoming") return;
  for (const side of [0, 1]) {
    const at = (label: string) => sideTotals(event, label)[side]!;
    switch (sport) {
      case "soccer":
        expect(at("Shots")).toBeGreaterThanOrEqual(at("Shots on target"));
        expect(at("Shots on target")).toBeGreaterThanOrEqual(score[side]!);
        break;
      case "basketball":
        expect(2 * at("2-pointers made") + 3 * at("3-pointers made") + at("Free throws made")).toBe(score[side]);
        break;
      case "american-football":
        expect(
          6 * at("Touchdowns") +
            at("Extra points") +
            2 * at("Two-point conversions") +
            3 * at("Field goals") +
            2 * at("Safeties"),
        ).toBe(score[side]);
        break;
      case "ice-hockey":
        expect(at("Shots on goal")).toBeGreaterThanOrEqual(score[side]!);
        expect(at("Power-play goals")).toBeLessThanOrEqual(score[side]!);
        break;
      case "baseball":
        expect(at("Home runs")).toBeLessThanOrEqual(at("Hits"));
        expect(score[side]).toBeGreaterThanOrEqual(at("Home runs"));
        break;
      case "tennis": {
        const sets = event.stats!.filter((s) => /^Set \d+ games$/.test(s.label));
        const won = sets.filter((s) => {
          const [mine, theirs] = side === 0 ? [s.home, s.away] : [s.away, s.home];
          return (mine >= 6 && mine - theirs >= 2) || mine === 7;
        }).length;
        expect(won).toBe(score[side]);
        break;
      }
      case "cs2": {
        const maps = event.stats!.filter((s) => /^Map \d+ rounds$/.test(s.label));
        const won = maps.filter((s) => {
          const [mine, theirs] = side === 0 ? [s.home, s.away] : [s.away, s.home];
          const low = Math.min(mine, theirs);
          const target = low < 12 ? 13 : 16 + 3 * Math.floor((low - 12) / 3);
          return mine >= target;
        }).length;
        expect(won).toBe(score[side]);
        break;
      }
    }
  }
}

const ON_LADDER = new Set(LADDER);
const COUNTS_DOWN: Sport[] = ["basketball", "american-football", "ice-hockey"];

describe.each(SPORTS)("a simulated %s event, start to end", (sport) => {
  const runs = ["a", "b", "c", "d"].map((seed) => {
    const event = new SimulatedEvent(plan(sport, seed));
    return { event, updates: runToEnd(event) };
  });

  it("moves only along the contract's status transitions, from upcoming to an end", () => {
    for (const { updates } of runs) {
      const statuses = updates.flatMap((u) => (u.event?.status ? [u.event.status] : []));
      expect(statuses[0]).toBe("upcoming");
      for (let i = 1; i < statuses.length; i++)
        expect(canMove(statuses[i - 1]!, statuses[i]!), statuses.join(" ")).toBe(true);
      expect(["finished", "cancelled"]).toContain(statuses.at(-1));
    }
    // The usual fate is a played match.
    expect(runs.some(({ updates }) => updates.some((u) => u.event?.status === "finished"))).toBe(true);
  });

  it("never lowers a score, never runs a clock backwards within a period, and keeps statistics in line with the score", () => {
    for (const { updates } of runs) {
      let previous: EventFields | undefined;
      for (const update of updates) {
        const event = update.event;
        if (!event) continue;
        checkStatsAgree(sport, event);
        if (previous && previous.status !== "upcoming") {
          expect(event.score!.home).toBeGreaterThanOrEqual(previous.score!.home);
          expect(event.score!.away).toBeGreaterThanOrEqual(previous.score!.away);
          if (event.period === previous.period && event.clock && previous.clock) {
            const [before, after] = [seconds(previous.clock), seconds(event.clock)];
            if (sport === "soccer") expect(after).toBeGreaterThanOrEqual(before);
            else if (COUNTS_DOWN.includes(sport)) expect(after).toBeLessThanOrEqual(before);
            else if (sport === "cs2" && after > before) {
              // The round timer starts again only with a new round.
              expect(JSON.stringify(event.stats)).not.toBe(JSON.stringify(previous.stats));
            }
          }
        }
        previous = event;
      }
    }
  });

  it("prices every open market on the ladder with a margin (at least 2 % unless one outcome is nearly certain), in the sport's own market types", () => {
    let open = 0;
    for (const { updates } of runs) {
      for (const market of updates.flatMap((u) => u.markets ?? [])) {
        expect(SPORT_MARKET_TYPES[sport]).toContain(market.type);
        for (const outcome of market.outcomes) expect(ON_LADDER.has(outcome.price), `${outcome.price}`).toBe(true);
        if (market.status !== "open") continue;
        open++;
        const prices = market.outcomes.map((o) => o.price);
        const total = overround(prices);
        const shown = `${market.name}: ${prices.join(" / ")}`;
        expect(total, shown).toBeGreaterThan(1);
        expect(total, shown).toBeLessThanOrEqual(1.15);
        if (Math.min(...prices) >= 1.25) expect(total, shown).toBeGreaterThanOrEqual(1.02);
      }
    }
    expect(open).toBeGreaterThan(20);
  });

  it("suspends markets after a score, then shortens the scorer's price", () => {
    let checked = 0;
    for (const { updates } of runs) {
      let lastOpenHome: number | undefined;
      let score = { home: 0, away: 0 };
      let pending: { side: "home" | "away"; before: number } | undefined;
      let winnerStatus: string | undefined;
      for (const update of updates) {
        const winner = update.markets?.find((m) => m.type === "match_winner");
        if (winner) winnerStatus = winner.status;
        const now = update.event?.score;
        if (now && (now.home !== score.home || now.away !== score.away)) {
          if (lastOpenHome !== undefined && now.home > score.home && now.away === score.away)
            pending = { side: "home", before: lastOpenHome };
          if (lastOpenHome !== undefined && now.away > score.away && now.home === score.home)
            pending = { side: "away", before: lastOpenHome };
          score = now;
          // The update that carries the score carries its markets suspended (or settled, at the end).
          if (update.event?.status === "live") expect(winnerStatus).toBe("suspended");
          continue;
        }
        if (winner?.status === "open") {
          const home = winner.outcomes.find((o) => o.id.endsWith(":home"))!.price;
          if (pending) {
            if (pending.side === "home") expect(home).toBeLessThanOrEqual(pending.before);
            else expect(home).toBeGreaterThanOrEqual(pending.before);
            checked++;
            pending = undefined;
          }
          lastOpenHome = home;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("keeps the markets suspended after a score for as long as the sport's books do", () => {
    // Seconds from a score to its markets open again: longer when a break or another incident
    // (a red card, a break of serve, a review) falls in between.
    const gaps: number[] = [];
    for (const seed of ["a", "b"]) {
      const event = new SimulatedEvent(plan(sport, seed));
      let suspendedAt: number | undefined;
      let score = "";
      for (let t = -4 * 3600_000; !event.done && gaps.length < 12; t += 1_000) {
        for (const update of event.advanceTo(t)) {
          const winner = update.markets?.find((m) => m.type === "match_winner");
          const scoreNow = update.event?.score ? JSON.stringify(update.event.score) : score;
          const scored = scoreNow !== score;
          score = scoreNow;
          if (scored && update.event?.status === "live" && winner?.status === "suspended") suspendedAt = t;
          else if (suspendedAt !== undefined && winner?.status === "open" && update.event?.status !== "suspended") {
            gaps.push((t - suspendedAt) / 1000);
            suspendedAt = undefined;
          }
        }
      }
    }
    expect(gaps.length).toBeGreaterThan(0);
    expect(Math.min(...gaps), gaps.join(", ")).toBe(SUSPENSION.score[sport]);
  });

  it("settles every market at the end", () => {
    for (const { event, updates } of runs) {
      const last = new Map<string, FeedUpdate["markets"]>();
      for (const market of updates.flatMap((u) => u.markets ?? [])) last.set(market.id, [market]);
      const finished = updates.some((u) => u.event?.status === "finished");
      if (!finished || event.fate !== "normal") continue;
      for (const [id, [market]] of [...last].map(([id, m]) => [id, m!] as const)) {
        expect(market!.status, id).toBe("settled");
        expect(market!.outcomes.filter((o) => o.status === "won").length, id).toBeLessThanOrEqual(1);
      }
    }
  });
});

/** What a run of updates leaves of an event, folded as the ingest folds them: fields, markets by id, lineups. */
function stateAfter(updates: FeedUpdate[]) {
  const event: Partial<EventFields> = {};
  const markets: Record<string, unknown> = {};
  let lineups: FeedUpdate["lineups"] = undefined;
  for (const update of updates) {
    Object.assign(event, update.event);
    for (const market of update.markets ?? []) markets[market.id] = market;
    lineups = update.lineups ?? lineups;
  }
  return { event, markets, lineups };
}

describe("a simulated event picked up late", () => {
  it.each(SPORTS)("sends %s updates the feed accepts, however much happened since", (sport) => {
    for (const seed of ["a", "b"]) {
      const event = new SimulatedEvent(plan(sport, `late-${seed}`));
      const updates = event.advanceTo(12 * 3600_000);
      expect(event.done).toBe(true);
      for (const update of updates) expect(feedUpdateSchema.safeParse(update).error).toBeUndefined();
    }
  });
});

describe("a simulated event's life is a pure function of its plan", () => {
  it("replays to the same state whether it was followed all along or picked up late", () => {
    const at = 3_000_000;
    const followed = new SimulatedEvent(plan("soccer", "replay"));
    const followedUpdates: FeedUpdate[] = [];
    for (let t = -4 * 3600_000; t < at; t += 1_000) followedUpdates.push(...followed.advanceTo(t));
    followedUpdates.push(...followed.advanceTo(at));
    const all = new SimulatedEvent(plan("soccer", "replay"));
    const atOnce = stateAfter(all.advanceTo(at));
    const late = new SimulatedEvent(plan("soccer", "replay"));
    const pickedUp = stateAfter([...late.advanceTo(-3_600_000), ...late.advanceTo(at)]);

    expect(atOnce.event.status).toBe("live");
    expect(Object.keys(atOnce.markets).length).toBeGreaterThan(0);
    expect(atOnce.lineups).toBeDefined();
    expect(stateAfter(followedUpdates)).toEqual(atOnce);
    expect(pickedUp).toEqual(atOnce);
  });
});
