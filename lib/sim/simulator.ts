import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/index.ts";
import { events, SPORTS, type EventStatus, type Sport } from "../db/schema/index.ts";
import { applyBatch, EventNames, linesOf, type BatchResult } from "../feed/ingest.ts";
import type { Revision } from "../feed/history.ts";
import type { FeedUpdate } from "../feed/schemas.ts";
import { competitionsOf } from "./names.ts";
import { hashString, seededRandom } from "./random.ts";
import { SimulatedEvent, type EventPlan } from "./simulated-event.ts";
import { MODELS } from "./sports/index.ts";
import { logger } from "../log/index.ts";

// The simulated world: for every sport a schedule of events on a fixed grid of kickoff slots
// (about four live at any moment), over the coming days. Which slots hold an event, who plays and
// how it goes all follow from the seed, the speed and the slot, so the world at any moment is the
// same whichever instance computes it, and a new leader simply carries on.

export type SimulatorOptions = {
  speed: number;
  seed: number;
  /** Simulated seconds of schedule ahead of now. */
  horizon?: number;
  /** Real milliseconds between ticks. */
  tickMs?: number;
  now?: () => Date;
  /** Each batch's committed revisions, in order: the instance hands them to its views. */
  committed?: (revisions: Revision[]) => void;
};

const LIVE_PER_SPORT = 4;
const HORIZON = 3 * 86_400;
const BATCH = 250;
const SHORT_NAMES: Record<Sport, string> = {
  soccer: "soc",
  basketball: "bkb",
  tennis: "ten",
  "american-football": "afb",
  "ice-hockey": "ihk",
  baseball: "bsb",
  cs2: "cs2",
};
const OPEN: EventStatus[] = ["upcoming", "live", "suspended", "postponed"];

/** Simulated seconds between kickoff slots of a sport, on a five-minute grid. */
function slotSpacing(sport: Sport): number {
  return Math.max(300, Math.round(MODELS[sport].typicalDuration / LIVE_PER_SPORT / 300) * 300);
}

export type TickReport = {
  updates: number;
  applied: number;
  /** Updates a replay after a start or a takeover sent again, which the database already holds. */
  replayed: number;
  /** Lines refused for any other reason, and why (a few of them). */
  rejected: number;
  rejections: string[];
  tracked: number;
};

export class Simulator {
  private readonly db: Database;
  private readonly speed: number;
  private readonly seed: number;
  private readonly horizon: number;
  private readonly tickMs: number;
  private readonly now: () => Date;
  private readonly committed: ((revisions: Revision[]) => void) | undefined;
  readonly world: string;
  private readonly tracked = new Map<string, SimulatedEvent>();
  private readonly finished = new Set<string>();
  // The ids of the competitions and sides it has applied: each name is looked up once.
  private readonly names = new EventNames();
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(db: Database, options: SimulatorOptions) {
    this.db = db;
    this.speed = options.speed;
    this.seed = options.seed;
    this.horizon = options.horizon ?? HORIZON;
    this.tickMs = options.tickMs ?? 1_000;
    this.now = options.now ?? (() => new Date());
    this.committed = options.committed;
    // Events of another seed or speed belong to another world: their ids differ.
    this.world = (hashString(`${this.seed}:${this.speed}`) % 36 ** 4).toString(36).padStart(4, "0");
  }

  /** The plan of a slot of a sport, or null when the schedule leaves that slot empty. */
  plan(sport: Sport, slot: number): EventPlan | null {
    const seed = `${this.seed}:${sport}:${slot}`;
    const rng = seededRandom(seed);
    if (!rng.chance(0.8)) return null;
    const competition = rng.pick(competitionsOf(sport));
    const home = rng.pick(competition.sides);
    let away = rng.pick(competition.sides);
    while (away === home) away = rng.pick(competition.sides);
    const spacingMs = (slotSpacing(sport) * 1000) / this.speed;
    const offsetMs = (SPORTS.indexOf(sport) * 7 * 60 * 1000) / this.speed;
    return {
      id: `${SHORT_NAMES[sport]}-${this.world}-${slot}`,
      sport,
      competition: competition.name,
      home,
      away,
      kickoffMs: slot * spacingMs + offsetMs,
      speed: this.speed,
      seed,
    };
  }

  /** The slots whose events may be open at `nowMs`, from the oldest still possibly running. */
  private slots(sport: Sport, nowMs: number): number[] {
    const spacingMs = (slotSpacing(sport) * 1000) / this.speed;
    const behindMs = ((MODELS[sport].typicalDuration * 2 + 6 * 3600 + 1800) * 1000) / this.speed;
    const aheadMs = (this.horizon * 1000) / this.speed;
    const first = Math.floor((nowMs - behindMs) / spacingMs);
    const last = Math.floor((nowMs + aheadMs) / spacingMs);
    const out: number[] = [];
    for (let slot = first; slot <= last; slot++) out.push(slot);
    return out;
  }

  private parseId(id: string): { sport: Sport; slot: number } | null {
    const [short, world, slot] = id.split("-");
    const sport = (Object.keys(SHORT_NAMES) as Sport[]).find((s) => SHORT_NAMES[s] === short);
    if (!sport || world !== this.world || !/^-?\d+$/.test(slot ?? "")) return null;
    return { sport, slot: Number(slot) };
  }

  /** One step of the world: every tracked event brought to now, new slots announced. */
  async tick(): Promise<TickReport> {
    const nowMs = this.now().getTime();
    const updates: FeedUpdate[] = [];
    if (!this.started) {
      updates.push(...(await this.adoptStored()));
      this.started = true;
    }
    const inWindow = new Set<string>();
    for (const sport of SPORTS) {
      for (const slot of this.slots(sport, nowMs)) {
        const plan = this.plan(sport, slot);
        if (!plan) continue;
        inWindow.add(plan.id);
        if (!this.tracked.has(plan.id) && !this.finished.has(plan.id))
          this.tracked.set(plan.id, new SimulatedEvent(plan));
      }
    }
    let advanced = 0;
    for (const [id, event] of this.tracked) {
      updates.push(...event.advanceTo(nowMs));
      // Replaying many events after a start or takeover takes a few seconds of CPU: let requests in.
      if (++advanced % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      if (event.done) {
        this.tracked.delete(id);
        this.finished.add(id);
      }
    }
    for (const id of this.finished) if (!inWindow.has(id)) this.finished.delete(id);

    const report: TickReport = {
      updates: updates.length,
      applied: 0,
      replayed: 0,
      rejected: 0,
      rejections: [],
      tracked: this.tracked.size,
    };
    for (let i = 0; i < updates.length; i += BATCH) {
      const result: BatchResult = await applyBatch(
        this.db,
        linesOf(updates.slice(i, i + BATCH)),
        this.now(),
        this.names,
      );
      this.committed?.(result.revisions);
      report.applied += result.applied;
      for (const line of result.results) {
        if (line.status === "applied") continue;
        // Each event is replayed from its start, so what it already reached comes back as applied
        // already, or older when that is no longer remembered.
        if (line.status === "duplicate" || line.code === "stale_sequence") {
          report.replayed++;
          continue;
        }
        report.rejected++;
        if (report.rejections.length < 5) report.rejections.push(`${line.event_id}: ${line.message}`);
      }
    }
    return report;
  }

  /**
   * On start, the open simulated events already stored: those of this world are replayed to now
   * (an instance taking over, or a restart after a pause); those of another world are cancelled.
   */
  private async adoptStored(): Promise<FeedUpdate[]> {
    const rows = await this.db
      .select({ id: events.id, status: events.status, sequence: events.feedSequence })
      .from(events)
      .where(and(eq(events.feed, "simulation"), inArray(events.status, OPEN)));
    const updates: FeedUpdate[] = [];
    for (const row of rows) {
      const parsed = this.parseId(row.id);
      const plan = parsed && this.plan(parsed.sport, parsed.slot);
      if (plan) {
        this.tracked.set(plan.id, new SimulatedEvent(plan));
        continue;
      }
      // The contract's way to cancel from each open status.
      const path: EventStatus[] =
        row.status === "live"
          ? ["suspended", "cancelled"]
          : row.status === "postponed"
            ? ["upcoming", "cancelled"]
            : ["cancelled"];
      path.forEach((status, i) =>
        updates.push({ event_id: row.id, sequence: row.sequence + i + 1, event: { status } }),
      );
    }
    return updates;
  }

  start(onTick?: (report: TickReport) => void): void {
    this.stopped = false;
    const loop = () => {
      this.running = this.tick()
        .then(onTick, (error: unknown) => logger().error({ err: error }, "Simulator tick failed"))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.tickMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
