import { now as clockNow } from "../clock.ts";
import type { Database } from "../db/index.ts";
import { apiKeys } from "../db/schema/index.ts";
import { keyChanges, keyCreations, publish, type ChangeBus, type KeyChange } from "../bus/index.ts";
import { KeyHashIndex } from "./hash-index.ts";
import { findKeyByHash, findKeyHashById, type ApiKeyRecord } from "./lookup.ts";

/**
 * Tells every instance, when and only if the transaction commits, that what it cached about a key
 * (or every key of an organisation) is stale.
 */
export function notifyKeyChange(tx: Database, change: KeyChange): Promise<void> {
  return publish(tx, keyChanges, change);
}

/** Tells every instance, when the transaction commits, that a key with this hash exists now. */
export function notifyKeyCreated(tx: Database, keyHash: string): Promise<void> {
  return publish(tx, keyCreations, { keyHash });
}

/**
 * How long a key is served from memory before it is read again. A safety net only: a change is
 * announced on the bus and empties the entry at once, and a resync empties everything; the age
 * bounds how long an entry could outlive a change whose notice was lost some other way.
 */
export const KEY_MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 50_000;
// Hashes no key has, so that a client repeating an invented key costs one read a minute, not one a
// request. Nothing needs forgetting: a new key's hash is random, so it was never looked up before.
const UNKNOWN_MAX_AGE_MS = 60_000;
const UNKNOWN_MAX_ENTRIES = 50_000;

type Entry = { record: ApiKeyRecord; loadedAt: number };

/** Reads keys from the database: one read per miss. */
export type KeyReader = {
  /** The key with this hash. */
  byHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** The hash of the key with this id (a stream token's key). */
  hashOf(keyId: string): Promise<string | null>;
  /** Every key's hash, revoked and expired ones included (they are refused by name, not as unknown). */
  allHashes?(): Promise<string[]>;
};

/** The reader of a database's keys, as every instance uses it. */
export function keysOf(db: Database): KeyReader {
  return {
    byHash: (keyHash) => findKeyByHash(db, keyHash),
    hashOf: (keyId) => findKeyHashById(db, keyId),
    allHashes: async () => {
      const rows = await db.select({ keyHash: apiKeys.keyHash }).from(apiKeys);
      return rows.map((row) => row.keyHash);
    },
  };
}

/** The keys an instance knows: what the API's credentials and the streams ask, and how it hears of changes. */
export interface KeyDirectory {
  /** The key with this hash; null when there is no such key. */
  resolve(keyHash: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null>;
  /** The key with this id and its hash (a stream token's key); null when there is no such key. */
  resolveById(keyId: string): Promise<{ record: ApiKeyRecord; keyHash: string } | null>;
  /** Whether this hash was a key's when last read, however long ago: a client known to hold a key. */
  knows(keyHash: string): boolean;
  /** Whether this hash is certainly no key's, from an index of every key's hash; false while there is no index. */
  isNoKey(keyHash: string): boolean;
  /** Whether this hash was lately found to be no key's: answered without a read. */
  knowsUnknown(keyHash: string): boolean;
  /** The index's size and memory; null while there is none (every unknown key costs a read). */
  readonly indexed: { keys: number; bytes: number } | null;
  /** Calls back after each change to keys (null: any key may have changed). */
  onChange(listener: (change: KeyChange | null) => void): () => void;
  /** Hears every instance's key changes and creations on the bus; returns how to stop. */
  follow(bus: ChangeBus): Promise<() => void>;
}

/**
 * Keys by SHA-256, so a request costs no database read once its key is known. One per instance;
 * every change reaches it through the bus, the changes this instance made included.
 */
export class KeyCache implements KeyDirectory {
  private readonly entries = new Map<string, Entry>();
  /**
   * The hash last put at the end of `entries`, still last if still there: a key that sends every
   * request is not moved again (a Map's delete and set made it a new table, often, in the old space).
   */
  private newest: string | undefined;
  /** Hashes found to be no key's, by when that was learned; oldest first. */
  private readonly unknown = new Map<string, number>();
  private readonly loading = new Map<string, Promise<ApiKeyRecord | null>>();
  /** Key hashes by key id, for stream tokens; most recently read last. */
  private readonly hashes = new Map<string, string>();
  private readonly changeListeners = new Set<(change: KeyChange | null) => void>();
  private generation = 0;
  /** Every key's hash, once loaded (`follow`); null until then, when every key is read as before. */
  private index: KeyHashIndex | null = null;

  private readonly read: KeyReader;
  private readonly maxEntries: number;
  private readonly now: () => Date;

  constructor(read: KeyReader, options: { maxEntries?: number; now?: () => Date } = {}) {
    this.read = read;
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.now = options.now ?? clockNow;
  }

  // From memory, or one read per miss.
  resolve(keyHash: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null> {
    const at = this.now().getTime();
    const entry = this.entries.get(keyHash);
    if (entry && at - entry.loadedAt < KEY_MAX_AGE_MS) {
      // Most recently used last: a Map keeps insertion order, so the first entry is the one to evict.
      if (this.newest !== keyHash) {
        this.entries.delete(keyHash);
        this.entries.set(keyHash, entry);
        this.newest = keyHash;
      }
      return entry.record;
    }
    const unknownSince = this.unknown.get(keyHash);
    if (unknownSince !== undefined) {
      if (at - unknownSince < UNKNOWN_MAX_AGE_MS) return null;
      this.unknown.delete(keyHash);
    }
    let pending = this.loading.get(keyHash);
    if (!pending) {
      const generation = this.generation;
      pending = this.read
        .byHash(keyHash)
        .then((record) => {
          if (record) this.rememberHash(record.id, keyHash);
          // A change announced while the read was under way may not be in what it read.
          if (record && generation === this.generation) {
            this.entries.delete(keyHash);
            if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
            this.entries.set(keyHash, { record, loadedAt: at });
            this.newest = keyHash;
          } else if (!record) {
            if (this.unknown.size >= UNKNOWN_MAX_ENTRIES) this.unknown.delete(this.unknown.keys().next().value!);
            this.unknown.set(keyHash, at);
          }
          return record;
        })
        .finally(() => {
          if (this.loading.get(keyHash) === pending) this.loading.delete(keyHash);
        });
      this.loading.set(keyHash, pending);
    }
    return pending;
  }

  // A key's hash never changes, so only the first use of a key on an instance costs the extra read.
  async resolveById(keyId: string): Promise<{ record: ApiKeyRecord; keyHash: string } | null> {
    const keyHash = this.hashes.get(keyId) ?? (await this.read.hashOf(keyId));
    if (keyHash === null) return null;
    const record = await this.resolve(keyHash);
    return record && record.id === keyId ? { record, keyHash } : null;
  }

  private rememberHash(keyId: string, keyHash: string): void {
    this.hashes.delete(keyId);
    if (this.hashes.size >= this.maxEntries) this.hashes.delete(this.hashes.keys().next().value!);
    this.hashes.set(keyId, keyHash);
  }

  knows(keyHash: string): boolean {
    return this.entries.has(keyHash);
  }

  isNoKey(keyHash: string): boolean {
    return this.index !== null && !this.index.has(keyHash);
  }

  get indexed(): { keys: number; bytes: number } | null {
    return this.index && { keys: this.index.size, bytes: this.index.bytes };
  }

  /** Reads every key's hash into a new index (at start, and after notices may have been lost). */
  async loadIndex(): Promise<void> {
    if (!this.read.allHashes) return;
    this.creationsWhileLoading = [];
    try {
      const hashes = await this.read.allHashes();
      const index = new KeyHashIndex(hashes.length);
      for (const hash of hashes) index.add(hash);
      // Announced while the read was under way: perhaps not in what it read.
      for (const hash of this.creationsWhileLoading) index.add(hash);
      this.index = index;
    } finally {
      this.creationsWhileLoading = null;
    }
  }

  /** Hashes announced while the index is read, added to the one the read makes. */
  private creationsWhileLoading: string[] | null = null;

  /** A key was created: its hash goes into the index at once. */
  created(keyHash: string): void {
    this.index?.add(keyHash);
    this.creationsWhileLoading?.push(keyHash);
    this.unknown.delete(keyHash);
  }

  knowsUnknown(keyHash: string): boolean {
    const since = this.unknown.get(keyHash);
    return since !== undefined && this.now().getTime() - since < UNKNOWN_MAX_AGE_MS;
  }

  forget(change: KeyChange): void {
    this.generation++;
    // A read under way may have missed the change: the next resolve reads again.
    this.loading.clear();
    for (const [hash, { record }] of this.entries) {
      if ("keyId" in change ? record.id === change.keyId : record.orgId === change.orgId) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
  }

  /**
   * Calls back after each change announced on the bus has been forgotten (null: any key may have
   * changed, after a resync or an unreadable notice), so what resolves next is the key as it is now.
   */
  onChange(listener: (change: KeyChange | null) => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  /**
   * Empties entries when any instance announces a change, and everything after a resync; adds the
   * hash of every key created, and reads them all again after a resync.
   */
  async follow(bus: ChangeBus): Promise<() => void> {
    const unfollowCreations = await bus.follow(keyCreations, (creation) => {
      if (creation) this.created(creation.keyHash);
      else void this.reloadIndex();
    });
    const unfollowChanges = await bus.follow(keyChanges, (change) => {
      if (change) this.forget(change);
      else this.clear();
      for (const listener of this.changeListeners) listener(change);
    });
    await this.loadIndex();
    return () => {
      unfollowCreations();
      unfollowChanges();
    };
  }

  /** After notices may have been lost: every key is read as before until the index is whole again. */
  private async reloadIndex(): Promise<void> {
    this.index = null;
    try {
      await this.loadIndex();
    } catch {
      // The database is away: keys are read one by one until the bus's next resync loads it.
    }
  }
}
