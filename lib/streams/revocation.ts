import { keyLicenceRefusal } from "../accounts/licences.ts";
import type { KeyChange as KeyNotice, SessionRevocation } from "../bus/index.ts";
import type { KeyDirectory } from "../keys/cache.ts";
import type { ApiKeyRecord } from "../keys/lookup.ts";
import { memberPrincipal } from "../metering/index.ts";
import { channelSports, type Subscriber } from "./channels.ts";
import { StreamEnding } from "./errors.ts";
import type { StreamPrincipal } from "./stream.ts";

// Streams whose credentials stopped being good while they were open: a key revoked, expired, moved
// off a sport, its licence out of force or its IP allowlist no longer including the stream's
// address; a console session revoked (sign-out, password reset, the member's removal) or past its
// end. The decisions are pure; what feeds them is the key directory's changes and the sessions'
// revocations, both heard on the change bus, so every instance ends its streams.

/** A change to keys: one key, every key of an organisation, or (null) any key at all. */
export type KeyChange = KeyNotice | null;

/** Where the streams learn what a key is now, and that keys changed. */
export type StreamKeys = Pick<KeyDirectory, "resolve" | "onChange">;

/**
 * Where the streams hear that a member's sessions were revoked (lib/accounts/sessions.ts); null
 * when any may have been (the bus was away).
 */
export type SessionDirectory = {
  onRevoked(listener: (revocation: SessionRevocation | null) => void): () => void;
};

/** The ending of a stream whose key (or session) expired. */
export function expiredEnding(principal: StreamPrincipal): StreamEnding {
  return principal.session
    ? new StreamEnding("session_expired", "The console session ended; sign in again to follow the feed.")
    : new StreamEnding(
        "key_expired",
        `This ${principal.key.environment === "sandbox" ? "sandbox key" : "key"} expired at ${principal.key.expiresAt!.toISOString()}.`,
      );
}

/** Whether the stream's key (a session's end included) has passed its expiry at `at`. */
export function hasExpired(principal: StreamPrincipal, at: Date): boolean {
  const { expiresAt } = principal.key;
  return expiresAt !== null && expiresAt <= at;
}

/** Whether a key change concerns the stream: a session's stream has no key to change. */
export function keyChangeConcerns(change: KeyChange, principal: StreamPrincipal): boolean {
  if (principal.keyHash === null) return false;
  if (change === null) return true;
  return "keyId" in change ? principal.key.id === change.keyId : principal.key.orgId === change.orgId;
}

/** Why a stream showing `sports` may not go on with its key as it is now, or null when it may. */
export function keyRefusal(
  key: ApiKeyRecord | null,
  principal: StreamPrincipal,
  sports: readonly string[],
  at: Date,
): StreamEnding | null {
  if (!key) return new StreamEnding("invalid_api_key", "The stream's key no longer exists.");
  if (key.revokedAt) return new StreamEnding("key_revoked", `This key was revoked on ${key.revokedAt.toISOString()}.`);
  if (key.expiresAt && key.expiresAt <= at) return expiredEnding({ ...principal, key });
  const uncovered = sports.find((sport) => !(key.sports as string[]).includes(sport));
  if (uncovered) return new StreamEnding("sport_not_covered", `The key's plan no longer covers ${uncovered}.`);
  const licence = keyLicenceRefusal(key, at);
  if (licence !== null) return new StreamEnding("licence_inactive", licence);
  if (key.allowList && !principal.session && !(principal.address !== null && key.allowList.allows(principal.address)))
    return new StreamEnding(
      "ip_not_allowed",
      `This key is now limited to ${key.allowList.networks.join(", ")}, which does not include ${principal.address ?? "the address this stream was opened for"}.`,
    );
  return null;
}

/**
 * Whether a revocation of sessions ends the stream: a console member's stream, of that member.
 * Every session the member holds when it is heard was signed in before it (signing in again and
 * opening a stream take longer than a notification takes to arrive).
 */
export function sessionRevoked(principal: StreamPrincipal, revocation: SessionRevocation): boolean {
  return principal.session && principal.key.id === memberPrincipal(revocation.userId);
}

export function sessionRevokedEnding(): StreamEnding {
  return new StreamEnding(
    "session_expired",
    "The console session was ended (signed out, password reset or removed from the organisation); sign in again to follow the feed.",
  );
}

/** Ends the streams the key directory's changes and the sessions' revocations concern. */
export class Revocation {
  private readonly subscribers: ReadonlySet<Subscriber>;
  private readonly keys: StreamKeys;
  private readonly now: () => Date;
  private readonly sessions: SessionDirectory;
  private readonly end: (subscriber: Subscriber, ending: StreamEnding) => void;
  private readonly reconnect: (subscriber: Subscriber) => void;

  constructor(options: {
    subscribers: ReadonlySet<Subscriber>;
    keys: StreamKeys;
    sessions: SessionDirectory;
    now: () => Date;
    /** Ends a stream with its last `error`. */
    end: (subscriber: Subscriber, ending: StreamEnding) => void;
    /** Closes a stream with a short `retry:`: its client reopens it at once, with its last id. */
    reconnect: (subscriber: Subscriber) => void;
  }) {
    this.subscribers = options.subscribers;
    this.keys = options.keys;
    this.sessions = options.sessions;
    this.now = options.now;
    this.end = options.end;
    this.reconnect = options.reconnect;
  }

  /** Follows the key directory's changes and the sessions' revocations; returns how to stop. */
  follow(): () => void {
    const unfollowKeys = this.keys.onChange((change) => void this.recheckKeys(change));
    const unfollowSessions = this.sessions.onRevoked((revocation) => this.endSessions(revocation));
    return () => {
      unfollowKeys();
      unfollowSessions();
    };
  }

  /** Streams of keys that changed: a revoked or expired key's streams end, saying why. */
  async recheckKeys(change: KeyChange): Promise<void> {
    const byHash = new Map<string, Subscriber[]>();
    for (const subscriber of this.subscribers) {
      const { keyHash } = subscriber.principal;
      if (keyHash === null || !keyChangeConcerns(change, subscriber.principal)) continue;
      byHash.set(keyHash, [...(byHash.get(keyHash) ?? []), subscriber]);
    }
    for (const [hash, subscribers] of byHash) {
      let current: ApiKeyRecord | null;
      try {
        current = await this.keys.resolve(hash);
      } catch {
        continue; // the database is away; the bus's resync checks again once it is back
      }
      for (const subscriber of subscribers) {
        const refusal = keyRefusal(current, subscriber.principal, channelSports(subscriber.channel), this.now());
        if (refusal) this.end(subscriber, refusal);
        else if (current) subscriber.principal = { ...subscriber.principal, key: current };
      }
    }
  }

  /**
   * A member's sessions were revoked: their streams end now. Unknown revocations (null: the bus
   * was away) close every session's stream with a short retry instead, so each client opens it
   * again at once and its session is checked as it opens, missing nothing.
   */
  endSessions(revocation: SessionRevocation | null): void {
    for (const subscriber of [...this.subscribers]) {
      if (!subscriber.principal.session) continue;
      if (revocation === null) this.reconnect(subscriber);
      else if (sessionRevoked(subscriber.principal, revocation)) this.end(subscriber, sessionRevokedEnding());
    }
  }
}
