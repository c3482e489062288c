import type { Database } from "../db/index.ts";
import {
  historyAt,
  marketRevisions,
  revisionsAfter,
  snapshotThrough,
  type MarketRevision,
  type Revision,
} from "../feed/history.ts";
import type { FeedMirror } from "../feed/mirror.ts";
import type { FeedViews, ViewFollower, ViewName } from "../feed/views.ts";

/**
 * What the streams and the API read of the feed: the two views as they move on, and the revision
 * history a resuming client is replayed from and the past is read from. An interface, so the
 * streams' decisions can be tested on a feed made up in memory.
 */
export type FeedSource = {
  readonly delaySeconds: number;
  mirror(view: ViewName): FeedMirror;
  follow(view: ViewName, follower: ViewFollower): () => void;
  /** Resolves once the present has applied `revision`, or `timeoutMs` passed. */
  reach(revision: number, timeoutMs: number): Promise<unknown>;
  /** Reads what the present missed (after the bus was unheard for a while). */
  advance(): Promise<void>;
  revisionsAfter(
    after: number,
    options: {
      eventIds: readonly string[] | undefined;
      sports?: readonly string[] | undefined;
      through: number;
      limit: number;
    },
  ): Promise<{ revisions: Revision[]; complete: boolean }>;
  /** Each event's state (or those of `eventIds`) as of `through`, as revisions, for a mirror to start from. */
  snapshotThrough(through: number, eventIds?: readonly string[]): Promise<Revision[]>;
  /** The revision the feed was at at `at` (at most `through`), and how far pruning has deleted. */
  historyAt(at: Date, through: number): Promise<{ revision: number; prunedThrough: number }>;
  /** One market in each markets revision of its event in a window, led by its state at `from`. */
  marketRevisions(
    eventId: string,
    marketId: string,
    window: { from: Date | null; to: Date; through: number },
  ): Promise<MarketRevision[]>;
};

/** The instance's views and the database's revision history, as the streams read them. */
export function feedSource(db: Database, views: FeedViews): FeedSource {
  return {
    get delaySeconds() {
      return views.delaySeconds;
    },
    mirror: (view) => views.mirror(view),
    follow: (view, follower) => views.follow(view, follower),
    reach: (revision, timeoutMs) => views.reach(revision, timeoutMs),
    advance: () => views.advance(),
    revisionsAfter: (after, options) => revisionsAfter(db, after, options),
    snapshotThrough: (through, eventIds) => snapshotThrough(db, through, eventIds),
    historyAt: (at, through) => historyAt(db, at, through),
    marketRevisions: (eventId, marketId, window) => marketRevisions(db, eventId, marketId, window),
  };
}
