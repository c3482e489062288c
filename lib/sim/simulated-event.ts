import type { EventStatus, Lineups, Market, Sport } from "../db/schema/index.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import type { GameView, MarketQuote, SportModel } from "./model.ts";
import { lineupOf } from "./names.ts";
import { pricesWithMargin } from "./ladder.ts";
import { PREMATCH_REFRESH, PrematchMarket, prematchQuotes } from "./prematch.ts";
import { seededRandom, type Random } from "./random.ts";
import { decidedResults, resultsAtEnd, type Result } from "./settlement.ts";
import { MODELS } from "./sports/index.ts";
import { suspensionFor } from "./suspensions.ts";

// One simulated event from announcement to the end: the sport's model for play, and around it
// the lifecycle every sport shares (pre-match markets from the announcement, lineups an hour
// before, now and then a postponement, a cancellation or a suspension, markets suspended for a
// while after a score, a penalty, a red card, a break of serve or a review (suspensions.ts),
// settled as the game decides them, and voided when the event is abandoned). Its whole life is a pure function of its plan, so whoever replays it gets the same event.

/** A market as the simulator sends it: the ingest sets `updated_at`. */
type MarketDraft = Omit<Market, "updated_at">;

export type Fate = "normal" | "postponed" | "cancelled" | "abandoned";

/** The fate an event's plan gives it: the first draw of its `fate` generator. */
function fateFrom(fateRng: Random, sport: Sport): Fate {
  const roll = fateRng.next();
  const abandoned = 0.03 + ABANDONED[sport];
  return roll < 0.02 ? "postponed" : roll < 0.03 ? "cancelled" : roll < abandoned ? "abandoned" : "normal";
}

/** An event's fate without simulating it, to pick events by fate cheaply. */
export const fateOf = (plan: Pick<EventPlan, "sport" | "seed">): Fate =>
  fateFrom(seededRandom(`${plan.seed}:fate`), plan.sport);

export type EventPlan = {
  id: string;
  sport: Sport;
  competition: string;
  home: string;
  away: string;
  /** Planned kickoff, epoch milliseconds of real time. */
  kickoffMs: number;
  /** Simulated seconds per real second. */
  speed: number;
  /** The seed of this event's own generator. */
  seed: string;
};

const LINEUPS_BEFORE = 3600;
const POSTPONED_AT = -7200;
const RESCHEDULED_AT = -5400;
const POSTPONEMENT = 6 * 3600;
const CANCELLED_AT = -10800;
/**
 * The share of events abandoned once started: weather and pitches stop the outdoor sports, while
 * indoor ones (and CS2's servers) stop far more rarely (docs/simulator.md).
 */
const ABANDONED: Record<Sport, number> = {
  soccer: 0.01,
  tennis: 0.01,
  baseball: 0.01,
  "american-football": 0.003,
  cs2: 0.002,
  basketball: 0.001,
  "ice-hockey": 0.001,
};
const PRICE_REFRESH = 10;
const MARKETS_PER_UPDATE = 50;
// Sequences count simulated seconds from a point well before any announcement, four per second.
const SEQUENCE_ORIGIN = 10_000_000;

export class SimulatedEvent {
  readonly plan: EventPlan;
  readonly fate: Fate;
  private readonly model: SportModel<unknown>;
  private readonly rng: Random;
  private readonly prematch: PrematchMarket;
  private game: unknown;
  private readonly suspendAfter: number; // seconds of play before a suspension, if the fate has one
  private readonly suspensionLength: number;
  private status: EventStatus = "upcoming";
  private second: number; // simulated seconds since the planned kickoff, processed so far
  private kickoffSecond = 0;
  private played = 0;
  private suspendedFor = 0;
  private marketsSuspendedUntil = -Infinity;
  private lastPriced = -Infinity;
  private lineupsPublished = false;
  private markets = new Map<string, MarketDraft>();
  // Markets whose price, status or name changed since the last update sent.
  private changedMarkets = new Set<string>();
  private lastSequence = 0;
  private lastEvent = "";
  private pendingLineups: Lineups | null = null;

  /** The simulated second, before anything can happen to an event, from which it is replayed. */
  static readonly FIRST_SECOND = CANCELLED_AT - 1;

  constructor(plan: EventPlan) {
    this.plan = plan;
    this.model = MODELS[plan.sport];
    const fateRng = seededRandom(`${plan.seed}:fate`);
    this.fate = fateFrom(fateRng, plan.sport);
    const suspended = this.fate === "abandoned" || fateRng.chance(0.04);
    this.suspendAfter = suspended ? fateRng.int(600, Math.max(900, this.model.typicalDuration * 0.6)) : Infinity;
    this.suspensionLength = fateRng.int(120, 600);
    this.rng = seededRandom(`${plan.seed}:play`);
    this.game = this.model.create(this.rng, fateRng.normal() * 0.6, plan.competition);
    if (this.fate === "postponed") this.kickoffSecond = POSTPONEMENT;
    this.second = SimulatedEvent.FIRST_SECOND;
    this.prematch = new PrematchMarket(plan.seed);
    // Announced with its pre-match markets open.
    this.refreshPrematch();
  }

  get done(): boolean {
    return this.status === "finished" || this.status === "cancelled";
  }

  /** Simulated seconds since the planned kickoff at a real moment. */
  secondAt(nowMs: number): number {
    return Math.floor(((nowMs - this.plan.kickoffMs) * this.plan.speed) / 1000);
  }

  /** The updates that bring the event from where it was to `nowMs`: one per status change, then the latest state. */
  advanceTo(nowMs: number): FeedUpdate[] {
    const target = this.secondAt(nowMs);
    const updates: FeedUpdate[] = [];
    if (this.lastSequence === 0) updates.push(this.snapshot(true));
    while (this.second < target && !this.done) {
      this.second++;
      const statusBefore = this.status;
      this.stepLifecycle();
      if (this.status !== statusBefore) updates.push(this.snapshot(true));
      // A replay from far back gathers many settled markets (a round each in CS2): an update holds 60.
      else if (this.changedMarkets.size >= MARKETS_PER_UPDATE) updates.push(this.snapshot(false));
    }
    const last = this.snapshot(false);
    if (last.event || last.markets || last.lineups) updates.push(last);
    return updates;
  }

  private stepLifecycle(): void {
    const t = this.second;
    if (this.status === "upcoming" || this.status === "postponed") {
      if (this.fate === "cancelled" && t >= CANCELLED_AT) {
        this.status = "cancelled";
        this.refreshPrematch();
        return;
      }
      if (this.fate === "postponed" && this.status === "upcoming" && t >= POSTPONED_AT && t < RESCHEDULED_AT) {
        this.status = "postponed";
        this.refreshPrematch();
        return;
      }
      let news = false;
      if (this.status === "postponed" && t >= RESCHEDULED_AT) {
        this.status = "upcoming";
        news = true;
      }
      if (!this.lineupsPublished && t >= this.kickoffSecond - LINEUPS_BEFORE && this.status === "upcoming") {
        this.lineupsPublished = true;
        this.pendingLineups = {
          home: lineupOf(this.plan.sport, this.plan.home),
          away: lineupOf(this.plan.sport, this.plan.away),
        };
        news = true;
      }
      if (this.status === "upcoming" && t >= this.kickoffSecond) {
        this.status = "live";
        this.refreshMarkets();
      } else if (news || (t - SimulatedEvent.FIRST_SECOND) % PREMATCH_REFRESH === 0) {
        this.refreshPrematch();
      }
      return;
    }
    if (this.status === "suspended") {
      if (++this.suspendedFor >= this.suspensionLength) {
        this.status = this.fate === "abandoned" ? "cancelled" : "live";
        this.refreshMarkets();
      }
      return;
    }
    // Live. The event's own suspension waits for the markets to reopen, so a penalty's or a
    // review's wait (which the game stands still through) is never cut short by it.
    const marketsHeld = t < this.marketsSuspendedUntil;
    if (this.played >= this.suspendAfter && this.suspendedFor === 0 && !this.model.inBreak(this.game) && !marketsHeld) {
      this.status = "suspended";
      this.suspendedFor = 1;
      this.refreshMarkets();
      return;
    }
    this.played++;
    const reopens = t === this.marketsSuspendedUntil;
    const incidents = this.model.step(this.game, this.rng);
    for (const incident of incidents) {
      const until = t + suspensionFor(incident, this.plan.sport);
      this.marketsSuspendedUntil = Math.max(this.marketsSuspendedUntil, until);
    }
    if (this.model.isOver(this.game)) {
      this.status = "finished";
      this.refreshMarkets();
    } else if (incidents.length > 0 || reopens || t - this.lastPriced >= PRICE_REFRESH) {
      this.refreshMarkets();
    }
  }

  private view(): GameView {
    if (
      this.status === "upcoming" ||
      this.status === "postponed" ||
      (this.status === "cancelled" && this.played === 0)
    ) {
      return { score: { home: 0, away: 0 }, clock: "", period: "", stats: [] };
    }
    return this.model.view(this.game);
  }

  /**
   * The pre-match markets before kickoff: open while the event is upcoming, suspended while it is
   * postponed, void when it is cancelled. The in-play markets (the same ones, and those that only
   * open in play) are priced from kickoff on by refreshMarkets.
   */
  private refreshPrematch(): void {
    const steps = Math.floor((this.second - SimulatedEvent.FIRST_SECOND) / PREMATCH_REFRESH);
    const error = this.prematch.error(steps, this.kickoffSecond - this.second, this.lineupsPublished);
    const sides = { home: this.plan.home, away: this.plan.away };
    const cancelled = this.status === "cancelled";
    for (const quote of prematchQuotes(this.model.quotes(this.game, sides), error)) {
      const id = `${this.plan.id}:${quote.key}`;
      const previous = this.markets.get(id);
      if (previous?.status === "settled") continue;
      const results = cancelled ? quote.outcomes.map(() => "void" as const) : null;
      this.update(id, this.market(id, quote, previous, results, this.status === "postponed"));
    }
  }

  private refreshMarkets(): void {
    this.lastPriced = this.second;
    const ended = this.status === "finished" || this.status === "cancelled";
    const suspended = this.status === "suspended" || this.second < this.marketsSuspendedUntil;
    const quoted = new Set<string>();
    for (const quote of this.model.quotes(this.game, { home: this.plan.home, away: this.plan.away })) {
      const id = `${this.plan.id}:${quote.key}`;
      quoted.add(id);
      const previous = this.markets.get(id);
      if (previous?.status === "settled") continue;
      // Bets on what the game decided stand; an abandoned event voids the rest.
      const results = ended ? resultsAtEnd(quote) : decidedResults(quote);
      this.update(id, this.market(id, quote, previous, results, suspended));
    }
    if (!ended) return;
    // A market the model no longer quotes cannot be left open by an event that is over.
    for (const [id, market] of this.markets) {
      if (quoted.has(id) || market.status === "settled") continue;
      const outcomes = market.outcomes.map((o) => ({ ...o, status: "void" as const }));
      this.update(id, { ...market, status: "settled", outcomes });
    }
  }

  private update(id: string, next: MarketDraft): void {
    const previous = this.markets.get(id);
    if (previous && JSON.stringify(next) === JSON.stringify(previous)) return;
    this.markets.set(id, next);
    this.changedMarkets.add(id);
  }

  private market(
    id: string,
    quote: MarketQuote,
    previous: MarketDraft | undefined,
    results: Result[] | null,
    suspended: boolean,
  ): MarketDraft {
    const status = results ? "settled" : suspended ? "suspended" : "open";
    const fresh = pricesWithMargin(
      quote.outcomes.map((o) => o.probability),
      quote.outcomes.length > 2 ? 0.07 : 0.05,
    );
    // A market keeps the prices it was last open with while suspended and once settled.
    const keep = status !== "open" && previous && previous.outcomes.length === quote.outcomes.length;
    return {
      id,
      type: quote.type,
      name: quote.name,
      line: quote.line,
      status,
      outcomes: quote.outcomes.map((o, i) => ({
        id: `${id}:${o.key}`,
        name: o.name,
        price: keep ? previous.outcomes[i]!.price : fresh[i]!,
        status: results ? results[i]! : suspended ? "suspended" : "active",
      })),
    };
  }

  private sequence(): number {
    this.lastSequence = Math.max((SEQUENCE_ORIGIN + this.second) * 4, this.lastSequence + 1);
    return this.lastSequence;
  }

  /** The update for the current state; `force` emits the event even when nothing visible changed. */
  private snapshot(force: boolean): FeedUpdate {
    const view = this.view();
    const kickoffMs = this.plan.kickoffMs + (this.kickoffSecond * 1000) / this.plan.speed;
    const event = {
      sport: this.plan.sport,
      competition: this.plan.competition,
      home: this.plan.home,
      away: this.plan.away,
      status: this.status,
      feed: "simulation" as const,
      kickoff: new Date(kickoffMs).toISOString(),
      ...view,
    };
    const eventJson = JSON.stringify(event);
    const update: FeedUpdate = { event_id: this.plan.id, sequence: 0 };
    if (force || eventJson !== this.lastEvent) update.event = event;
    this.lastEvent = eventJson;
    if (this.changedMarkets.size > 0) {
      update.markets = [...this.changedMarkets].map((id) => this.markets.get(id)!);
      this.changedMarkets.clear();
    }
    if (this.pendingLineups) {
      update.lineups = this.pendingLineups;
      this.pendingLineups = null;
    }
    if (update.event || update.markets || update.lineups) update.sequence = this.sequence();
    return update;
  }
}
