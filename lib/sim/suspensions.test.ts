import { describe, expect, it } from "vitest";
import type { Sport } from "../db/schema/index.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import { simPlan } from "../../testing/sim-events.ts";
import { SimulatedEvent } from "./simulated-event.ts";
import { SUSPENSION } from "./suspensions.ts";

// Each cause of a market suspension, seen in the feed of seeded events followed second by second:
// the second the cause shows (a card, a penalty, a game against the serve), the markets suspended
// in that update, and open again when its time is up.

type EventFields = NonNullable<FeedUpdate["event"]>;
type Market = NonNullable<FeedUpdate["markets"]>[number];

/** The event as the feed leaves it after one simulated second. */
type Second = {
  t: number;
  status: string;
  score: string;
  clock: string;
  period: string;
  stats: EventFields["stats"];
  /** The result market is suspended. */
  held: boolean;
};

type Followed = { seconds: Second[]; markets: Market[] };

/** A normal-fated event followed one second at a time from kickoff to its end, and every market update it sent. */
function follow(sport: Sport, seed: string): Followed {
  const event = new SimulatedEvent(simPlan(sport, seed));
  const seconds: Second[] = [];
  const markets: Market[] = [];
  let fields: Partial<EventFields> = {};
  let held = false;
  const take = (updates: FeedUpdate[]) => {
    for (const update of updates) {
      fields = { ...fields, ...update.event };
      for (const market of update.markets ?? []) {
        markets.push(market);
        if (market.type === "match_winner") held = market.status === "suspended";
      }
    }
  };
  take(event.advanceTo(-1_000));
  for (let t = 0; !event.done; t++) {
    take(event.advanceTo(t * 1_000));
    seconds.push({
      t,
      status: fields.status!,
      score: `${fields.score?.home}-${fields.score?.away}`,
      clock: fields.clock ?? "",
      period: fields.period ?? "",
      stats: fields.stats,
      held,
    });
  }
  return { seconds, markets };
}

/** Normal-fated events of a sport, seed after seed, until `enough` says their seconds hold what a test needs. */
function followUntil(sport: Sport, enough: (events: Followed[]) => boolean, most = 60): Followed[] {
  const events: Followed[] = [];
  for (let i = 0; i < most && !enough(events); i++) {
    const plan = simPlan(sport, `suspension-${i}`);
    if (new SimulatedEvent(plan).fate !== "normal") continue;
    events.push(follow(sport, plan.seed));
  }
  return events;
}

const total = (second: Second, label: string) => {
  const stat = second.stats?.find((s) => s.label === label);
  return stat ? stat.home + stat.away : 0;
};

/** Seconds from `i` on that the markets stay suspended while the event is live. */
function heldFor(seconds: Second[], i: number): number {
  let n = 0;
  while (i + n < seconds.length && seconds[i + n]!.held && seconds[i + n]!.status === "live") n++;
  return n;
}

/** The seconds (index) at which `shows` sees the cause, with the markets open the second before. */
function occurrences(events: Followed[], shows: (before: Second, now: Second) => boolean) {
  return events.flatMap(({ seconds }) =>
    seconds.flatMap((now, i) => {
      const before = seconds[i - 1];
      if (!before || before.held || before.status !== "live" || now.status !== "live") return [];
      return shows(before, now) ? [{ seconds, i }] : [];
    }),
  );
}

describe("markets suspended in soccer", () => {
  const events = followUntil(
    "soccer",
    (found) =>
      occurrences(found, (b, n) => total(n, "Red cards") > total(b, "Red cards")).length >= 3 &&
      occurrences(found, (b, n) => total(n, "Penalties") > total(b, "Penalties")).length >= 3,
  );
  const redCard = SUSPENSION["red card"].soccer!;
  const penalty = SUSPENSION.penalty.soccer!;
  const review = SUSPENSION["video review"].soccer!;
  const goal = SUSPENSION.score.soccer;

  it("suspends the markets for a red card, for its time, then opens them again", () => {
    const cards = occurrences(
      events,
      (before, now) => total(now, "Red cards") > total(before, "Red cards") && now.score === before.score,
    );
    expect(cards.length).toBeGreaterThanOrEqual(3);
    const lengths = cards.map(({ seconds, i }) => heldFor(seconds, i));
    // Longer only when another incident (a goal, a penalty) falls within it.
    for (const length of lengths) expect(length).toBeGreaterThanOrEqual(redCard);
    expect(lengths, lengths.join(", ")).toContain(redCard);
  });

  it("suspends the markets from a penalty's award to its kick, and on for the goal when it is scored", () => {
    const awards = events.flatMap(({ seconds }) =>
      seconds.flatMap((now, i) =>
        i > 0 && now.status === "live" && total(now, "Penalties") > total(seconds[i - 1]!, "Penalties")
          ? [{ seconds, i }]
          : [],
      ),
    );
    expect(awards.length).toBeGreaterThanOrEqual(3);
    let scored = 0;
    for (const { seconds, i } of awards) {
      const at = seconds[i]!;
      // Play stands still until the kick: the markets stay suspended and nobody scores.
      expect(heldFor(seconds, i)).toBeGreaterThanOrEqual(penalty);
      expect(seconds[i + penalty - 1]!.score).toBe(at.score);
      const kick = seconds[i + penalty]!;
      if (kick.score !== at.score) {
        scored++;
        expect(heldFor(seconds, i + penalty)).toBeGreaterThanOrEqual(Math.min(goal, seconds.length - i - penalty - 1));
      } else {
        expect(kick.held, `missed penalty at ${at.clock}`).toBe(false);
      }
    }
    expect(scored).toBeGreaterThan(0);
  });

  it("suspends the markets for a VAR review until its call: open again, or on for the penalty it gives", () => {
    // Nothing shows when a review starts: a suspension with no goal, card or penalty is one.
    const reviews = occurrences(
      events,
      (before, now) =>
        now.held &&
        now.score === before.score &&
        total(now, "Red cards") === total(before, "Red cards") &&
        total(now, "Penalties") === total(before, "Penalties"),
    );
    expect(reviews.length).toBeGreaterThan(0);
    for (const { seconds, i } of reviews) {
      const call = seconds[i + review]!;
      expect(heldFor(seconds, i)).toBeGreaterThanOrEqual(review);
      const gave = total(call, "Penalties") > total(seconds[i]!, "Penalties");
      if (gave) expect(heldFor(seconds, i + review)).toBeGreaterThanOrEqual(penalty);
      else expect(call.held).toBe(false);
    }
  });
});

describe("markets suspended in ice hockey", () => {
  it("suspends the markets when a penalty starts a power play, for its time, then opens them again", () => {
    const penalties = (found: Followed[]) =>
      occurrences(
        found,
        (before, now) => total(now, "Penalty minutes") > total(before, "Penalty minutes") && now.score === before.score,
      );
    const events = followUntil("ice-hockey", (found) => penalties(found).length >= 5, 10);
    const lengths = penalties(events).map(({ seconds, i }) => heldFor(seconds, i));
    expect(lengths.length).toBeGreaterThanOrEqual(5);
    const powerPlay = SUSPENSION["power play"]["ice-hockey"]!;
    for (const length of lengths) expect(length).toBeGreaterThanOrEqual(powerPlay);
    expect(lengths, lengths.join(", ")).toContain(powerPlay);
  });
});

describe("markets suspended in tennis", () => {
  it("holds the markets longer after a break of serve than after a game held", () => {
    const games = (side: "home" | "away", s: Second) =>
      (s.stats ?? []).filter((x) => /^Set \d+ games$/.test(x.label)).reduce((n, x) => n + x[side], 0);
    const events = followUntil("tennis", (found) => found.length >= 2);
    const breaks: number[] = [];
    const holds: number[] = [];
    for (const { seconds, i } of occurrences(
      events,
      (before, now) => games("home", now) + games("away", now) > games("home", before) + games("away", before),
    )) {
      const before = seconds[i - 1]!;
      const lastSet = before.stats!.filter((x) => /^Set \d+ games$/.test(x.label)).at(-1)!;
      if (lastSet.home === 6 && lastSet.away === 6) continue; // a tiebreak: both players serve
      const serving = before.stats!.find((x) => x.label === "Serving")!;
      const wonByHome = games("home", seconds[i]!) > games("home", before);
      const held = heldFor(seconds, i);
      if (wonByHome === (serving.home === 1)) holds.push(held);
      else breaks.push(held);
    }
    expect(breaks.length).toBeGreaterThan(0);
    expect(holds.length).toBeGreaterThan(0);
    expect(new Set(breaks)).toEqual(new Set([SUSPENSION["break of serve"].tennis]));
    expect(new Set(holds)).toEqual(new Set([SUSPENSION.score.tennis]));
  });
});

describe("markets suspended in American football", () => {
  it("suspends the markets through a replay review, the game clock stopped, then opens them again", () => {
    // A suspension that no score explains is a review.
    const reviews = (found: Followed[]) => occurrences(found, (before, now) => now.held && now.score === before.score);
    const events = followUntil("american-football", (found) => reviews(found).length >= 2, 10);
    const review = SUSPENSION["video review"]["american-football"]!;
    const found = reviews(events);
    expect(found.length).toBeGreaterThanOrEqual(2);
    for (const { seconds, i } of found) {
      expect(heldFor(seconds, i)).toBe(review);
      const during = seconds.slice(i, i + review);
      expect(new Set(during.map((s) => `${s.period} ${s.clock} ${s.score}`)).size).toBe(1);
    }
  });
});

describe("the CS2 next-round market", () => {
  const { markets } = follow("cs2", "suspension-rounds");
  const rounds = new Map<string, { home?: number; winner?: "home" | "away" }>();
  for (const market of markets.filter((m) => m.type === "next_round")) {
    const round = rounds.get(market.id) ?? {};
    const home = market.outcomes.find((o) => o.id.endsWith(":home"))!;
    if (market.status === "open" && round.home === undefined) round.home = home.price;
    if (market.status === "settled") round.winner = home.status === "won" ? "home" : "away";
    rounds.set(market.id, round);
  }
  // [map, round, first open home price, winner]
  const played = [...rounds].map(([id, r]) => {
    const [map, round] = id.split(":").slice(-2).map(Number);
    return { map: map!, round: round!, ...r };
  });
  const previous = (map: number, round: number) => played.find((r) => r.map === map && r.round === round - 1);

  it("prices each round from the state, so the price moves between rounds", () => {
    const prices = played.flatMap((r) => (r.home === undefined ? [] : [r.home]));
    expect(prices.length).toBeGreaterThan(30);
    expect(new Set(prices).size).toBeGreaterThan(3);
  });

  it("makes the pistol round's winner a clear favourite in the round after it", () => {
    const conversions = played.filter((r) => (r.round === 2 || r.round === 14) && r.home !== undefined);
    expect(conversions.length).toBeGreaterThan(0);
    for (const r of conversions) {
      const pistol = previous(r.map, r.round)!.winner;
      if (pistol === "home") expect(r.home!).toBeLessThan(1.5);
      else expect(r.home!).toBeGreaterThan(3);
    }
  });

  it("leans the next round towards the winner of the last one, its economy the better", () => {
    const after = { home: [] as number[], away: [] as number[] };
    for (const r of played) {
      if (r.home === undefined || r.round <= 2 || (r.round >= 13 && r.round <= 14) || r.round > 24) continue;
      after[previous(r.map, r.round)!.winner!].push(r.home);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(after.home.length).toBeGreaterThan(5);
    expect(after.away.length).toBeGreaterThan(5);
    expect(mean(after.home)).toBeLessThan(mean(after.away));
  });
});
