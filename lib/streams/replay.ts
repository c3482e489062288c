import type { Revision } from "../feed/history.ts";
import { FeedMirror } from "../feed/mirror.ts";
import type { ChannelSpec } from "./channels.ts";
import type { FeedSource } from "./feed-source.ts";
import { boardMessages, eventStreamMessages, type Freshness, type StreamMessage } from "./messages.ts";

// What a stream sent after a revision, read back from the revision history: a resuming client is
// replayed it, and GET /api/v1/changes pages through it. One derivation, so the two cannot differ.

const PAGE = 1_000;

/**
 * The most revisions one answer of GET /api/v1/changes, or one resuming stream, reads back: a page
 * ends there (its next_since says where it got to), and a stream further behind is sent a fresh
 * snapshot instead, so no single request reads the whole history.
 */
export const REPLAY_REVISIONS = 10_000;

/** The history no longer reaches back to the revision asked for. */
export class HistoryGone extends Error {
  constructor(after: number) {
    super(`The revision history no longer holds every revision after ${after}.`);
  }
}

/**
 * The messages a stream of `channel` sent for each revision after `after`, through `through`, in
 * order: one entry per revision, its messages possibly none. Throws HistoryGone when the history
 * no longer holds every revision after `after`.
 */
export async function* replayed(
  feed: Pick<FeedSource, "revisionsAfter" | "snapshotThrough">,
  channel: ChannelSpec,
  after: number,
  through: number,
  fresh: (revision: Revision) => Freshness,
): AsyncGenerator<{ revision: number; messages: StreamMessage[] }> {
  // A board's messages depend on each event's state before the revision: the feed as it was at
  // `after`, for the events the revisions touch, moved on revision by revision.
  const board = channel.kind === "board" ? new FeedMirror() : null;
  board?.reset(after, new Date(0), []);
  for (let from = after; from < through;) {
    const { revisions, complete } = await feed.revisionsAfter(from, {
      eventIds: channel.kind === "event" ? [channel.eventId] : undefined,
      // A board's other sports are left in the database, not read and dropped here.
      sports: channel.kind === "board" ? channel.filter.sports : undefined,
      through,
      limit: PAGE,
    });
    if (!complete) throw new HistoryGone(after);
    if (board) {
      // An event the mirror lacks had no revision on earlier pages: its state at `after` is its state now.
      const missing = [...new Set(revisions.map((r) => r.eventId))].filter((id) => !board.get(id));
      if (missing.length > 0) board.add(await feed.snapshotThrough(after, missing));
    }
    for (const revision of revisions) {
      if (channel.kind === "event") {
        yield {
          revision: revision.revision,
          messages: eventStreamMessages(revision, channel.eventId, fresh(revision)),
        };
        continue;
      }
      const statusBefore = board!.get(revision.eventId)?.event.status;
      board!.apply(revision);
      const document = board!.get(revision.eventId);
      const messages = document ? boardMessages(channel.filter, revision, document, statusBefore, fresh(revision)) : [];
      yield { revision: revision.revision, messages };
    }
    if (revisions.length < PAGE) break;
    from = revisions.at(-1)!.revision;
  }
}
