import {
  keyChanges,
  type ChangeBus,
  type Channel,
  type KeyChange,
  type Notice,
  type Published,
} from "../lib/bus/index.ts";
import type { KeyDirectory } from "../lib/keys/cache.ts";
import type { ApiKeyRecord } from "../lib/keys/lookup.ts";

// Parts an instance takes (startInstance's `parts`), held in memory for tests and benchmarks: nothing
// reaches another process, and the test says what happens on them.

type Follower = (notice: unknown) => void;

/** A change bus in this process: what the test publishes reaches the followers as the database's would. */
export class MemoryBus implements ChangeBus {
  private readonly followers = new Map<string, Set<Follower>>();
  /** Whether `close` was called. */
  closed = false;

  async follow<C extends Channel>(channel: C, listener: (notice: Notice<C> | null) => void): Promise<() => void> {
    const set = this.followers.get(channel.name) ?? new Set<Follower>();
    this.followers.set(channel.name, set);
    const added = listener as Follower;
    set.add(added);
    return () => void set.delete(added);
  }

  subscribe<C extends Channel>(channel: C, listener: (notice: Notice<C>) => void): Promise<() => void> {
    return this.follow(channel, (notice) => {
      if (notice !== null) listener(notice);
    });
  }

  /** A notice as a publisher sends it: read through the channel's schema, as the real bus reads it. */
  publish<C extends Channel>(channel: C, notice: Published<C>): void {
    this.deliver(channel, JSON.stringify(notice));
  }

  /** A payload as LISTEN hands it over; one the channel cannot read reaches followers as null. */
  deliver(channel: Channel, payload: string): void {
    let notice: unknown = null;
    try {
      const parsed = channel.schema.safeParse(JSON.parse(payload));
      if (parsed.success) notice = parsed.data;
    } catch {
      // not JSON: unreadable, as above
    }
    this.fanOut(channel, notice);
  }

  /** As after a lost connection: the channel's followers hear that anything may have changed. */
  resync(channel: Channel): void {
    this.fanOut(channel, null);
  }

  async close(): Promise<void> {
    this.followers.clear();
    this.closed = true;
  }

  private fanOut(channel: Channel, notice: unknown): void {
    for (const follower of this.followers.get(channel.name) ?? []) follower(notice);
  }
}

/**
 * A key directory over the records the test gives it, by hash, with no index of every key (so no
 * hash is certainly no key's). Following a bus passes its key changes on to `onChange`'s listeners.
 */
export class MemoryKeyDirectory implements KeyDirectory {
  private readonly records: Map<string, ApiKeyRecord>;
  private readonly listeners = new Set<(change: KeyChange | null) => void>();
  readonly indexed = null;

  constructor(keys: Record<string, ApiKeyRecord> = {}) {
    this.records = new Map(Object.entries(keys));
  }

  /** Adds or replaces the key with this hash. */
  set(keyHash: string, record: ApiKeyRecord): void {
    this.records.set(keyHash, record);
  }

  /** Removes the key with this id, and tells the listeners as its revocation's notice would. */
  revoke(keyId: string): void {
    for (const [hash, record] of this.records) if (record.id === keyId) this.records.delete(hash);
    this.changed({ keyId });
  }

  resolve(keyHash: string): ApiKeyRecord | null {
    return this.records.get(keyHash) ?? null;
  }

  async resolveById(keyId: string): Promise<{ record: ApiKeyRecord; keyHash: string } | null> {
    for (const [keyHash, record] of this.records) if (record.id === keyId) return { record, keyHash };
    return null;
  }

  knows(keyHash: string): boolean {
    return this.records.has(keyHash);
  }

  isNoKey(): boolean {
    return false;
  }

  knowsUnknown(): boolean {
    return false;
  }

  onChange(listener: (change: KeyChange | null) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  follow(bus: ChangeBus): Promise<() => void> {
    return bus.follow(keyChanges, (change) => this.changed(change));
  }

  private changed(change: KeyChange | null): void {
    for (const listener of this.listeners) listener(change);
  }
}
