import { z } from "zod";
import type { RevisionKind } from "../db/schema/index.ts";

// Every channel of the change bus, each with the schema of its notices: what a publisher may send
// (the schema's input) and what a subscriber is handed (its output). No other module names a channel.

export type Channel<S extends z.ZodType = z.ZodType> = { name: string; schema: S };
export type Notice<C extends Channel> = z.output<C["schema"]>;
export type Published<C extends Channel> = z.input<C["schema"]>;

const channel = <S extends z.ZodType>(name: string, schema: S): Channel<S> => ({ name, schema });

const KIND_BY_LETTER: Record<string, RevisionKind> = { e: "event", m: "markets", l: "lineups" };

/** Committed feed changes, `[event id, revision, kinds' first letters]`: readers fetch the state themselves. */
export const feedChanges = channel(
  "feed_changes",
  z.array(z.tuple([z.string(), z.number(), z.string()])).transform((entries) =>
    entries.map(([eventId, revision, letters]) => ({
      eventId,
      revision,
      kinds: [...letters].flatMap((letter) => KIND_BY_LETTER[letter] ?? []),
    })),
  ),
);
/** What changed, small enough to travel in a notice. */
export type EventChange = Notice<typeof feedChanges>[number];

/** A key created (or rolled to): its hash, which every instance's index of keys adds. */
export const keyCreations = channel("key_creations", z.object({ keyHash: z.string() }));
export type KeyCreation = Notice<typeof keyCreations>;

/** A revoked key, or an organisation whose keys' plan or licence changed. */
export const keyChanges = channel(
  "key_changes",
  z.union([z.object({ keyId: z.string() }), z.object({ orgId: z.string() })]),
);
export type KeyChange = Notice<typeof keyChanges>;

/** Every session of a user signed in until now was revoked (a sign-out, a password reset, a removal). */
export const sessionRevocations = channel("session_revocations", z.object({ userId: z.string() }));
export type SessionRevocation = Notice<typeof sessionRevocations>;

/** What an instance's meter announces after each flush (lib/metering/gossip.ts). */
export const usageTotals = channel(
  "usage_totals",
  z.object({
    /** The instance. */
    i: z.string(),
    /** Month totals after its flush. */
    t: z.array(z.tuple([z.string(), z.string(), z.number()])),
    /** Its admissions in the current second. */
    s: z.array(z.tuple([z.string(), z.number(), z.number()])),
    /** Its open streams. */
    o: z.array(z.tuple([z.string(), z.number()])),
  }),
);
export type UsageNotice = Notice<typeof usageTotals>;

/**
 * A message was queued in an outbox, or made due again (a resend, an endpoint enabled): every
 * instance's worker for that outbox looks now, rather than at its next idle look.
 */
export const outboxQueued = channel("outbox_queued", z.enum(["mail", "webhooks"]));
export type OutboxName = Notice<typeof outboxQueued>;

/** An instance's notice to itself, its own id: hearing it back means it hears the feed too. */
export const streamHeartbeat = channel("stream_heartbeat", z.string());

// A notice must stay under PostgreSQL's 8,000 bytes; a batch's changes are split to fit.
const FEED_NOTICE_LIMIT = 7_000;

export function feedChangeNotices(changes: EventChange[]): Published<typeof feedChanges>[] {
  const notices: Published<typeof feedChanges>[] = [];
  let chunk: [string, number, string][] = [];
  let size = 2;
  for (const change of changes) {
    const entry: [string, number, string] = [change.eventId, change.revision, change.kinds.map((k) => k[0]).join("")];
    const entrySize = JSON.stringify(entry).length + 1;
    if (size + entrySize > FEED_NOTICE_LIMIT && chunk.length > 0) {
      notices.push(chunk);
      chunk = [];
      size = 2;
    }
    chunk.push(entry);
    size += entrySize;
  }
  if (chunk.length > 0) notices.push(chunk);
  return notices;
}
