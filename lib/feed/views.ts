import type { Database } from "../db/index.ts";
import { feedChanges, type ChangeBus } from "../bus/index.ts";
import { lastRevision, lastRevisionRecordedBy, revisionsAfter, snapshotThrough, type Revision } from "./history.ts";
import { FeedMirror, type EventDocument } from "./mirror.ts";
import { logger } from "../log/index.ts";
import { Poller } from "../poller.ts";

const BATCH = 5_000;
// The delayed view moves on every second even when nobody asks for it, so what it holds back stays
// bounded. The present needs no polling (notifications bring every change, and the bus reports a
// reconnection); a read ten seconds after the last only bounds the wait if a notification were
// ever lost unnoticed.
const CATCH_UP_INTERVAL_MS = 1_000;
const POLL_INTERVAL_MS = 10_000;

export type ViewName = "present" | "delayed";

/**
 * Follows one view revision by revision, as it applies them: what streams are built on. `revision`
 * sees the document right after the revision and the status the event had before it; `applied`
 * marks the end of a run of revisions applied together; `reset` says the view started again from
 * a snapshot (it was away for longer than the history holds), so a follower must resync.
 */
export type ViewFollower = {
  revision(revision: Revision, document: EventDocument, statusBefore: string | undefined): void;
  applied(): void;
  reset(): void;
};

/**
 * The two views of the feed this instance serves from memory: the present (production keys) and
 * the present of `delaySeconds` ago (sandbox keys). Both are read from the revision history: the
 * present follows every revision as the change bus announces it; the delayed view applies the
 * same revisions, in the same order, once each is `delaySeconds` old, so a sandbox key never sees
 * anything younger than that.
 */
export class FeedViews {
  readonly present = new FeedMirror();
  private readonly delayedMirror = new FeedMirror();
  // Revisions the present has applied and the delayed view has not, in revision order.
  private pending: Revision[] = [];
  private pendingStart = 0;
  private readonly reader = new Poller(
    () => this.read(),
    () => POLL_INTERVAL_MS,
  );
  // What the wakes since the last read asked for: the highest revision named (a notice, `reach`),
  // and whether any wanted whatever there is (start-up, a notice that may have lost some, a stream
  // recovering); the idle look names nothing and reads too.
  private askedThrough = 0;
  private askedAll = false;
  // Revisions this instance committed, handed over by its ingest: the next read applies them from
  // memory when they follow the present directly, and asks the database only for what they miss.
  private offered: Revision[] = [];
  private timer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private readonly followers: Record<ViewName, Set<ViewFollower>> = { present: new Set(), delayed: new Set() };
  private unsubscribe: (() => void)[] = [];

  private readonly db: Database;
  readonly delaySeconds: number;
  private readonly now: () => Date;

  constructor(db: Database, delaySeconds: number, now: () => Date) {
    this.db = db;
    this.delaySeconds = delaySeconds;
    this.now = now;
  }

  async start(bus: ChangeBus): Promise<void> {
    await this.load();
    // null: notices may have been lost, so read past the last revision applied all the same.
    this.unsubscribe.push(
      await bus.follow(feedChanges, (changes) => {
        if (!changes) return void this.advance();
        const through = Math.max(...changes.map((change) => change.revision));
        if (through > this.present.revision) void this.advance(through);
      }),
    );
    // Whatever committed between the snapshot and the subscription.
    await this.advance();
    this.timer = setInterval(() => this.catchUp(this.now()), CATCH_UP_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Follows no more changes, and resolves once a read under way has ended: the instance closes the
   * database after this, and a read it cut off was logged as an error at every ordinary stop.
   */
  stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.dueTimer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.unsubscribe = [];
    return this.reader.stop();
  }

  /** The mirror of a view, without moving the delayed one on. */
  mirror(view: ViewName): FeedMirror {
    return view === "present" ? this.present : this.delayedMirror;
  }

  follow(view: ViewName, follower: ViewFollower): () => void {
    this.followers[view].add(follower);
    return () => void this.followers[view].delete(follower);
  }

  /** The feed as a sandbox key sees it at `at`: as it was `delaySeconds` before. */
  delayed(at: Date): FeedMirror {
    this.catchUp(at);
    return this.delayedMirror;
  }

  /**
   * Revisions this instance has just committed, in order (`applyBatch`'s): the present applies them
   * without reading them back when they follow its last one without a gap; otherwise another
   * instance committed in between, and the view reads the history as for any notice.
   */
  offer(revisions: Revision[]): void {
    const last = revisions.at(-1);
    if (!last || this.reader.stopped) return;
    this.offered.push(...revisions);
    void this.advance(last.revision);
  }

  /** Resolves once the present has applied `revision` (or `timeoutMs` passed). */
  async reach(revision: number, timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.present.revision < revision && Date.now() < deadline) {
      await this.advance(revision);
      if (this.present.revision < revision) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.present.revision >= revision;
  }

  /** Both views from the history: the present as of the last commit, the delayed as of its moment. */
  private async load(): Promise<void> {
    const last = await lastRevision(this.db);
    const delayedThrough = await lastRevisionRecordedBy(this.db, this.delayedMoment(this.now()), last.revision);
    const [present, delayed] = await Promise.all([
      snapshotThrough(this.db, last.revision),
      snapshotThrough(this.db, delayedThrough),
    ]);
    const pending: Revision[] = [];
    for (let after = delayedThrough; after < last.revision;) {
      const { revisions } = await revisionsAfter(this.db, after, { through: last.revision, limit: BATCH });
      if (revisions.length === 0) break;
      pending.push(...revisions);
      after = revisions.at(-1)!.revision;
    }
    this.present.reset(last.revision, last.recordedAt, present);
    const delayedAt = delayed.reduce((at, r) => (r.revision === delayedThrough ? r.recordedAt : at), new Date(0));
    this.delayedMirror.reset(delayedThrough, delayedAt, delayed);
    this.pending = pending;
    this.pendingStart = 0;
    for (const view of ["present", "delayed"] as const) for (const follower of this.followers[view]) follower.reset();
    this.scheduleCatchUp();
  }

  /**
   * Applies every revision after the present's, in order: one read at a time, once more if asked
   * meanwhile; resolves once those reads have ended. `through`: only a revision up to that one is
   * wanted, so a read that brought it meanwhile is enough.
   */
  advance(through?: number): Promise<void> {
    if (through === undefined) this.askedAll = true;
    else this.askedThrough = Math.max(this.askedThrough, through);
    this.reader.wake();
    return this.reader.settled();
  }

  private async read(): Promise<void> {
    const all = this.askedAll || this.askedThrough === 0;
    const through = this.askedThrough;
    this.askedAll = false;
    this.askedThrough = 0;
    this.applyOffered();
    // The ingest's offer and the commit's notice each wake the view: the offer brings the
    // revision, and the notice asks the database for nothing.
    if (!all && through <= this.present.revision) return;
    try {
      await this.applyNewRevisions();
    } catch (error) {
      logger().error({ err: error }, "The feed view could not follow the revision history");
    }
  }

  private async applyNewRevisions(): Promise<void> {
    for (;;) {
      const { revisions, complete } = await revisionsAfter(this.db, this.present.revision, { limit: BATCH });
      if (!complete) {
        // Away for longer than the retention window (a long pause): start again from snapshots.
        await this.load();
        return;
      }
      this.applyToPresent(revisions);
      if (revisions.length < BATCH || this.reader.stopped) return;
    }
  }

  /**
   * The offered revisions that continue the present without a gap. Revision numbers are handed out
   * in commit order with none skipped, so those are every revision up to the last of them; any
   * other offer is dropped (a read brings it, with what came between).
   */
  private applyOffered(): void {
    const offered = this.offered.sort((a, b) => a.revision - b.revision);
    this.offered = [];
    const next = offered.findIndex((revision) => revision.revision > this.present.revision);
    if (next < 0) return;
    let end = next;
    while (end < offered.length && offered[end]!.revision === this.present.revision + 1 + (end - next)) end++;
    this.applyToPresent(offered.slice(next, end));
  }

  private applyToPresent(revisions: Revision[]): void {
    for (const revision of revisions) {
      this.applyTo("present", revision);
      this.pending.push(revision);
    }
    if (revisions.length > 0) this.notifyApplied("present");
    this.scheduleCatchUp();
  }

  private applyTo(view: ViewName, revision: Revision): void {
    const mirror = this.mirror(view);
    const followers = this.followers[view];
    if (followers.size === 0) return mirror.apply(revision);
    const statusBefore = mirror.get(revision.eventId)?.event.status;
    const applied = mirror.revision;
    mirror.apply(revision);
    if (mirror.revision === applied) return;
    const document = mirror.get(revision.eventId);
    if (!document) return;
    for (const follower of followers) follower.revision(revision, document, statusBefore);
  }

  private notifyApplied(view: ViewName): void {
    for (const follower of this.followers[view]) follower.applied();
  }

  /**
   * Wakes the delayed view the moment its next revision is old enough, so a sandbox stream gets it
   * `delaySeconds` after the change, not at the next one-second tick.
   */
  private scheduleCatchUp(): void {
    clearTimeout(this.dueTimer);
    const next = this.pending[this.pendingStart];
    if (!next) return;
    const wait = Math.max(0, next.recordedAt.getTime() + this.delaySeconds * 1000 - this.now().getTime());
    this.dueTimer = setTimeout(() => {
      this.catchUp(this.now());
      this.scheduleCatchUp();
    }, wait + 1);
    this.dueTimer.unref();
  }

  private delayedMoment(at: Date): Date {
    return new Date(at.getTime() - this.delaySeconds * 1000);
  }

  private catchUp(at: Date): void {
    const moment = this.delayedMoment(at).getTime();
    let applied = 0;
    while (this.pendingStart < this.pending.length) {
      const next = this.pending[this.pendingStart]!;
      // In revision order, stopping at the first one not old enough: one recorded later than a
      // revision after it (two ingests racing for the counter) holds that one back too.
      if (next.recordedAt.getTime() > moment) break;
      this.applyTo("delayed", next);
      this.pendingStart++;
      applied++;
    }
    if (applied > 0) this.notifyApplied("delayed");
    if (this.pendingStart > 1_024 && this.pendingStart * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingStart);
      this.pendingStart = 0;
    }
  }
}
