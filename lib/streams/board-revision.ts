import type { Revision } from "../feed/history.ts";
import type { EventDocument } from "../feed/mirror.ts";
import { boardMessages, type BoardFilter, type Freshness } from "./messages.ts";
import { encodeMessages, type EncodedMessage } from "./sse.ts";

/**
 * One revision's board messages in one view of the feed, built and encoded once per market type
 * and shared by every board channel of that view that shows the event. What decides a board
 * message's bytes is the view (its freshness), whether the board's sports include the event's, and
 * the market type: the board's other sports do not, so keys whose plans cover different sport sets
 * get the same bytes, not a copy each.
 */
export class BoardRevision {
  private readonly byType = new Map<string | null, EncodedMessage[]>();
  private readonly revision: Revision;
  private readonly document: EventDocument;
  private readonly statusBefore: string | undefined;
  private readonly fresh: Freshness;

  constructor(revision: Revision, document: EventDocument, statusBefore: string | undefined, fresh: Freshness) {
    this.revision = revision;
    this.document = document;
    this.statusBefore = statusBefore;
    this.fresh = fresh;
  }

  /** The encoded messages of a board with this filter: the same array for every filter alike in type. */
  messages(filter: BoardFilter): readonly EncodedMessage[] {
    if (!filter.sports.includes(this.document.event.sport)) return [];
    let encoded = this.byType.get(filter.type);
    if (!encoded) {
      const messages = boardMessages(filter, this.revision, this.document, this.statusBefore, this.fresh);
      encoded = encodeMessages(messages);
      this.byType.set(filter.type, encoded);
    }
    return encoded;
  }
}
