import type { Market } from "../lib/db/schema/index.ts";
import type { MarketRevision, Revision } from "../lib/feed/history.ts";
import { FeedMirror } from "../lib/feed/mirror.ts";
import type { ViewFollower, ViewName } from "../lib/feed/views.ts";
import type { ApiKeyRecord } from "../lib/keys/lookup.ts";
import type { FeedSource } from "../lib/streams/feed-source.ts";
import type { SessionRevocation } from "../lib/bus/index.ts";
import type { KeyChange, SessionDirectory, StreamKeys } from "../lib/streams/revocation.ts";
import type { StreamSink } from "../lib/streams/sink.ts";
import type { StreamPrincipal, StreamRequest } from "../lib/streams/stream.ts";

// A feed, keys and client connections made up in memory, for the streams' unit tests.

export const eventState = (id: string, status = "live", sport = "soccer") => ({
  id,
  sport,
  competition: "League",
  home: "Home",
  away: "Away",
  status,
  feed: "official",
  kickoff: "2026-11-21T18:00:00.000Z",
  score: { home: 0, away: 0 },
  clock: "",
  period: "",
  stats: [],
  updated_at: "2026-11-21T18:00:00.000Z",
});

/** The present view and its history; revisions published are applied and followed as the views do. */
export class FakeFeed implements FeedSource {
  readonly delaySeconds = 60;
  readonly history: Revision[] = [];
  /** The history keeps the revisions after this one only. */
  retainedAfter = 0;
  private readonly mirrors = { present: new FeedMirror(), delayed: new FeedMirror() };
  private readonly followers: Record<ViewName, Set<ViewFollower>> = { present: new Set(), delayed: new Set() };
  private next = 0;

  mirror(view: ViewName): FeedMirror {
    return this.mirrors[view];
  }

  follow(view: ViewName, follower: ViewFollower): () => void {
    this.followers[view].add(follower);
    return () => void this.followers[view].delete(follower);
  }

  reach = () => Promise.resolve(true);
  advance = () => Promise.resolve();

  revisionsAfter(
    after: number,
    options: { eventIds: readonly string[] | undefined; sports?: readonly string[]; through: number; limit: number },
  ) {
    // As the database does: an event's sport is its row's, whichever revision is read.
    const sports = new Map<string, string>();
    for (const r of this.history) {
      if (r.kind === "event") sports.set(r.eventId, (r.state as { sport: string }).sport);
    }
    const revisions = this.history
      .filter((r) => r.revision > after && r.revision <= options.through)
      .filter((r) => !options.eventIds || options.eventIds.includes(r.eventId))
      .filter((r) => !options.sports || options.sports.includes(sports.get(r.eventId) ?? ""))
      .slice(0, options.limit);
    return Promise.resolve({ revisions, complete: after >= this.retainedAfter });
  }

  snapshotThrough(through: number, eventIds?: readonly string[]): Promise<Revision[]> {
    const latest = new Map<string, Revision>();
    for (const r of this.history) {
      if (r.revision <= through && (!eventIds || eventIds.includes(r.eventId))) latest.set(`${r.eventId}|${r.kind}`, r);
    }
    return Promise.resolve([...latest.values()]);
  }

  historyAt(at: Date, through: number) {
    const firstLater = this.history.find((r) => r.recordedAt > at && r.revision <= through);
    return Promise.resolve({
      revision: firstLater ? firstLater.revision - 1 : through,
      prunedThrough: this.retainedAfter,
    });
  }

  marketRevisions(
    eventId: string,
    marketId: string,
    window: { from: Date | null; to: Date; through: number },
  ): Promise<MarketRevision[]> {
    const rows = this.history.filter(
      (r) => r.eventId === eventId && r.kind === "markets" && r.revision <= window.through,
    );
    const { from } = window;
    const leading = from ? rows.filter((r) => r.recordedAt <= from).slice(-1) : [];
    const inWindow = rows.filter((r) => (!from || r.recordedAt > from) && r.recordedAt <= window.to);
    return Promise.resolve(
      [...leading, ...inWindow].map((r) => ({
        revision: r.revision,
        recordedAt: r.recordedAt,
        market: (r.state as Market[]).find((m) => m.id === marketId) ?? null,
      })),
    );
  }

  /** Records a revision in the history and moves the present on with it, as the bus would. */
  publish(eventId: string, kind: Revision["kind"], state: unknown): Revision {
    const revision: Revision = { revision: ++this.next, eventId, kind, recordedAt: new Date(), state };
    this.history.push(revision);
    const mirror = this.mirrors.present;
    const statusBefore = mirror.get(eventId)?.event.status;
    mirror.apply(revision);
    for (const follower of this.followers.present) follower.revision(revision, mirror.get(eventId)!, statusBefore);
    for (const follower of this.followers.present) follower.applied();
    return revision;
  }

  /** The view started again from a snapshot. */
  reset(view: ViewName): void {
    for (const follower of this.followers[view]) follower.reset();
  }
}

/** Keys by hash; `change` announces a change as the key cache does once it has forgotten it. */
export class FakeKeys implements StreamKeys {
  readonly byHash = new Map<string, ApiKeyRecord | null>();
  private readonly listeners = new Set<(change: KeyChange) => void>();

  resolve(keyHash: string): ApiKeyRecord | null {
    return this.byHash.get(keyHash) ?? null;
  }

  onChange(listener: (change: KeyChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  change(change: KeyChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** Revocations of sessions, announced by the test. */
export class FakeSessions implements SessionDirectory {
  private readonly listeners = new Set<(revocation: SessionRevocation | null) => void>();

  onRevoked(listener: (revocation: SessionRevocation | null) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  revoke(revocation: SessionRevocation | null): void {
    for (const listener of this.listeners) listener(revocation);
  }
}

export const keyRecord = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: "key_1",
  orgId: "org_1",
  environment: "production",
  planCode: "starter",
  sports: ["soccer", "tennis"],
  monthlyQuota: 1_000,
  requestsPerSecond: 10,
  concurrentStreams: 5,
  createdAt: new Date("2026-11-01T00:00:00Z"),
  expiresAt: null,
  revokedAt: null,
  ...overrides,
});

export type Message = { event?: string; id?: number; data?: Record<string, unknown>; retry?: number };

/** A client connection that records what it was written, parsed as SSE. */
export class FakeSink implements StreamSink {
  pending = 0;
  ended = false;
  destroyed = false;
  private readonly written: string[] = [];
  private readonly drains: (() => void)[] = [];
  private readonly closes: (() => void)[] = [];

  write(chunk: Buffer): void {
    this.written.push(chunk.toString());
  }
  onDrain(callback: () => void): void {
    this.drains.push(callback);
  }
  onClose(callback: () => void): void {
    this.closes.push(callback);
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
  }

  /** The client took everything it was sent. */
  drain(): void {
    this.pending = 0;
    for (const callback of this.drains.splice(0)) callback();
  }

  /** The client went away. */
  hangUp(): void {
    for (const callback of this.closes.splice(0)) callback();
  }

  get messages(): Message[] {
    const blocks = this.written.join("").split("\n\n").filter(Boolean);
    return blocks
      .filter((block) => !block.startsWith(":"))
      .map((block) => {
        const message: Message = {};
        for (const line of block.split("\n")) {
          const [field, value] = [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)];
          if (field === "event") message.event = value;
          if (field === "id") message.id = Number(value);
          if (field === "data") message.data = JSON.parse(value) as Record<string, unknown>;
          if (field === "retry") message.retry = Number(value);
        }
        return message;
      });
  }

  get events(): string[] {
    return this.messages.flatMap((m) => (m.event ? [m.event] : []));
  }
}

export function streamRequest(
  sink: StreamSink,
  principal: Partial<StreamPrincipal> = {},
  lastEventId?: string,
): StreamRequest & { slot: { release(): void; released: number } } {
  const slot = {
    released: 0,
    release() {
      this.released++;
    },
  };
  return {
    principal: { key: keyRecord(), keyHash: "hash_1", session: false, address: "203.0.113.7", ...principal },
    view: "present",
    lastEventId,
    requestId: "req_1",
    slot,
    sink,
  };
}
