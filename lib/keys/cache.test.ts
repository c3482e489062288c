import { describe, expect, it } from "vitest";
import { activeKey } from "../../testing/keys.ts";
import { MemoryBus } from "../../testing/instance-parts.ts";
import { keyChanges, keyCreations, type KeyChange } from "../bus/index.ts";
import { KEY_MAX_AGE_MS, KeyCache } from "./cache.ts";
import type { ApiKeyRecord } from "./lookup.ts";

// The key cache against a key store and a change bus in memory: what it serves from memory, and
// when a change, a resync or the age makes it read the key again.

const revokedAt = new Date("2026-11-21T12:00:00Z");

/** Keys by hash as the database holds them, counting reads; `holding` keeps the reads waiting. */
function keyStore(keys: Record<string, ApiKeyRecord>) {
  const held: Array<() => void> = [];
  const store = {
    keys,
    reads: 0,
    idReads: 0,
    holding: false,
    async read(hash: string): Promise<ApiKeyRecord | null> {
      store.reads++;
      // What the read sees is the row at the moment it ran, not when its answer arrives.
      const row = store.keys[hash] ? { ...store.keys[hash] } : null;
      if (store.holding) await new Promise<void>((resolve) => held.push(resolve));
      return row;
    },
    async hashOf(keyId: string): Promise<string | null> {
      store.idReads++;
      return Object.entries(store.keys).find(([, key]) => key.id === keyId)?.[0] ?? null;
    },
    /** Lets the reads under way answer, the `nth` of those started (0 the first) or all. */
    release(nth?: number) {
      if (nth !== undefined) return held[nth]!();
      store.holding = false;
      for (const resolve of held.splice(0)) resolve();
    },
  };
  return store;
}

async function setUp(keys: Record<string, ApiKeyRecord>, maxEntries?: number) {
  let clock = new Date("2026-11-21T12:00:00Z").getTime();
  const store = keyStore(keys);
  const cache = new KeyCache(
    { byHash: (hash) => store.read(hash), hashOf: (id) => store.hashOf(id) },
    { now: () => new Date(clock), maxEntries },
  );
  const bus = new MemoryBus();
  await cache.follow(bus);
  return {
    store,
    cache,
    /** A key change as a notice, or a payload the bus cannot read. */
    notify: (change: KeyChange | string) =>
      typeof change === "string" ? bus.deliver(keyChanges, change) : bus.publish(keyChanges, change),
    resync: () => bus.resync(keyChanges),
    advance: (ms: number) => void (clock += ms),
    /** The key as the cache answers now, and whether that took a read. */
    async answer(hash: string) {
      const reads = store.reads;
      const record = await cache.resolve(hash);
      return { record, read: store.reads > reads };
    },
  };
}

describe("the key cache", () => {
  it("serves a known key from memory until a notice names it", async () => {
    const { answer, notify, store } = await setUp({ h1: activeKey() });
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt: null } });
    store.keys.h1 = activeKey({ revokedAt });
    expect(await answer("h1")).toMatchObject({ read: false, record: { revokedAt: null } });
    notify({ keyId: "key-1" });
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt } });
  });

  it("finds a key by id (a stream token's key) with one read of its hash, then as a key by hash", async () => {
    const { answer, cache, notify, store } = await setUp({ h1: activeKey() });
    expect(await cache.resolveById("key-1")).toMatchObject({ keyHash: "h1", record: { id: "key-1" } });
    expect(store.idReads).toBe(1);
    await answer("h1");
    store.keys.h1 = activeKey({ revokedAt });
    notify({ keyId: "key-1" });
    // The hash is remembered; the key itself is read again after the notice, revocation and all.
    expect(await cache.resolveById("key-1")).toMatchObject({ record: { revokedAt } });
    expect(store.idReads).toBe(1);
    expect(await cache.resolveById("key-none")).toBeNull();
  });

  it("reads every key again after the bus resyncs, so a revocation sent while it was away takes effect", async () => {
    const { answer, resync, store } = await setUp({
      h1: activeKey(),
      h2: activeKey({ id: "key-2", orgId: "org-2" }),
    });
    await answer("h1");
    await answer("h2");
    // Revoked while the LISTEN connection was down: its notice is lost.
    store.keys.h1 = activeKey({ revokedAt });
    expect(await answer("h1")).toMatchObject({ read: false, record: { revokedAt: null } });
    resync();
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt } });
    expect(await answer("h2")).toMatchObject({ read: true });
  });

  it("treats a notice it cannot read as a change to any key", async () => {
    const { answer, notify, store } = await setUp({ h1: activeKey() });
    await answer("h1");
    store.keys.h1 = activeKey({ revokedAt });
    notify("{not json");
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt } });
  });

  it("drops every key of an organisation whose plan changed, and only those", async () => {
    const { answer, notify, store } = await setUp({
      a1: activeKey({ id: "key-a1", orgId: "org-a" }),
      a2: activeKey({ id: "key-a2", orgId: "org-a" }),
      b1: activeKey({ id: "key-b1", orgId: "org-b" }),
    });
    for (const hash of ["a1", "a2", "b1"]) await answer(hash);
    store.keys.a1 = activeKey({ id: "key-a1", orgId: "org-a", planCode: "starter", monthlyQuota: 10 });
    store.keys.a2 = activeKey({ id: "key-a2", orgId: "org-a", planCode: "starter", monthlyQuota: 10 });
    notify({ orgId: "org-a" });
    expect(await answer("a1")).toMatchObject({ read: true, record: { planCode: "starter", monthlyQuota: 10 } });
    expect(await answer("a2")).toMatchObject({ read: true, record: { planCode: "starter" } });
    expect(await answer("b1")).toMatchObject({ read: false });
  });

  it("does not let a read under way during a revocation put the revoked key back", async () => {
    const { answer, cache, notify, store } = await setUp({ h1: activeKey() });
    store.holding = true;
    const early = cache.resolve("h1"); // reads the key before it is revoked
    store.keys.h1 = activeKey({ revokedAt });
    notify({ keyId: "key-1" });
    // A request after the notice does not wait for the read that may have missed it.
    const late = cache.resolve("h1");
    expect(late).not.toBe(early);
    // The late read answers first; the early one, arriving after it, must not overwrite it.
    store.release(1);
    expect(await late).toMatchObject({ revokedAt });
    store.release(0);
    expect(await early).toMatchObject({ revokedAt: null });
    store.holding = false;
    expect(await answer("h1")).toMatchObject({ read: false, record: { revokedAt } });
  });

  it("does not let a read under way during a resync fill the emptied cache", async () => {
    const { answer, cache, resync, store } = await setUp({ h1: activeKey() });
    store.holding = true;
    const early = cache.resolve("h1");
    store.keys.h1 = activeKey({ revokedAt });
    resync();
    store.release();
    expect(await early).toMatchObject({ revokedAt: null });
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt } });
  });

  it("keeps the keys used last when full: a key used again, twice or once, is not the one dropped", async () => {
    const keys = { h1: activeKey({ id: "key-1" }), h2: activeKey({ id: "key-2" }), h3: activeKey({ id: "key-3" }) };
    const { answer } = await setUp(keys, 2);
    expect((await answer("h1")).read).toBe(true);
    expect((await answer("h2")).read).toBe(true);
    // h1 used again (twice: the second finds it last already), so h2 is the least recently used.
    expect((await answer("h1")).read).toBe(false);
    expect((await answer("h1")).read).toBe(false);
    expect((await answer("h3")).read).toBe(true);
    expect((await answer("h1")).read).toBe(false);
    expect((await answer("h2")).read).toBe(true);
    // h3 was used before h1 was last: h2's read dropped h3.
    expect((await answer("h1")).read).toBe(false);
    expect((await answer("h3")).read).toBe(true);
  });

  it(`reads a key again once it is ${KEY_MAX_AGE_MS / 1000} s old, so a change whose notice was lost takes effect`, async () => {
    const { answer, advance, store } = await setUp({ h1: activeKey() });
    await answer("h1");
    store.keys.h1 = activeKey({ revokedAt });
    advance(KEY_MAX_AGE_MS - 1);
    expect(await answer("h1")).toMatchObject({ read: false, record: { revokedAt: null } });
    advance(1);
    expect(await answer("h1")).toMatchObject({ read: true, record: { revokedAt } });
    // Read again, it is new: served from memory for another lifetime.
    advance(KEY_MAX_AGE_MS - 1);
    expect(await answer("h1")).toMatchObject({ read: false, record: { revokedAt } });
  });
});

describe("the index of every key's hash", () => {
  async function indexed(hashes: string[]) {
    const store = keyStore(Object.fromEntries(hashes.map((hash) => [hash, activeKey()])));
    let allReads = 0;
    const cache = new KeyCache({
      byHash: (hash) => store.read(hash),
      hashOf: (id) => store.hashOf(id),
      allHashes: async () => {
        allReads++;
        return Object.keys(store.keys);
      },
    });
    const bus = new MemoryBus();
    await cache.follow(bus);
    const announce = (notice: { keyHash: string } | null) =>
      notice ? bus.publish(keyCreations, notice) : bus.resync(keyCreations);
    return { store, cache, announce, allReads: () => allReads };
  }
  const hash = (n: number) => n.toString(16).padStart(16, "0").padEnd(64, "a");

  it("refuses a hash no key has without a read, and knows a key created since at once", async () => {
    const { store, cache, announce } = await indexed([hash(1)]);
    expect(cache.isNoKey(hash(1))).toBe(false);
    expect(cache.isNoKey(hash(2))).toBe(true);
    expect(store.reads).toBe(0);
    store.keys[hash(2)] = activeKey({ id: "key-2" });
    announce({ keyHash: hash(2) });
    expect(cache.isNoKey(hash(2))).toBe(false);
    expect(await cache.resolve(hash(2))).toMatchObject({ id: "key-2" });
  });

  it("reads every hash again after notices may have been lost, and until then decides by reads", async () => {
    const { store, cache, announce, allReads } = await indexed([hash(1)]);
    store.keys[hash(3)] = activeKey({ id: "key-3" });
    announce(null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(allReads()).toBe(2);
    expect(cache.isNoKey(hash(3))).toBe(false);
    expect(cache.indexed).toMatchObject({ keys: 2 });
  });
});
