import { describe, expect, it } from "vitest";
import { ChunkCache, deepFreeze } from "./chunk-cache.ts";

const payload = (...bytes: number[]) => Uint8Array.from(bytes);

describe("the cache of decoded chunks", () => {
  it("holds at most its bound in bytes, each chunk counted with its payload, the least recently used going first", () => {
    const cache = new ChunkCache<string>(100);
    cache.set("a", payload(1, 1), "A", 38);
    cache.set("b", payload(2, 2), "B", 38);
    expect(cache.stats).toEqual({ entries: 2, bytes: 80 });
    // Reading a makes b the least recently used: c's 40 bytes push b out, not a.
    expect(cache.get("a", payload(1, 1))).toBe("A");
    cache.set("c", payload(3, 3), "C", 38);
    expect(cache.stats).toEqual({ entries: 2, bytes: 80 });
    expect(cache.get("b", payload(2, 2))).toBeUndefined();
    expect(cache.get("a", payload(1, 1))).toBe("A");
    expect(cache.get("c", payload(3, 3))).toBe("C");
    // One chunk larger than the whole bound is not kept, and takes nothing out.
    cache.set("d", payload(4), "D", 100);
    expect(cache.get("d", payload(4))).toBeUndefined();
    expect(cache.stats).toEqual({ entries: 2, bytes: 80 });
    // Many more than fit: never past the bound.
    for (let i = 0; i < 50; i++) {
      cache.set(`k${i}`, payload(i), `V${i}`, 10 + (i % 7));
      expect(cache.stats.bytes).toBeLessThanOrEqual(100);
    }
    expect(cache.get("k49", payload(49))).toBe("V49");
  });

  it("serves a chunk only for the payload it was decoded from, and keeps a copy of it", () => {
    const cache = new ChunkCache<string>(1_000);
    const bytes = payload(1, 2, 3);
    cache.set("a", bytes, "A", 10);
    // The driver's buffer reused for another answer changes nothing held.
    bytes[0] = 9;
    expect(cache.get("a", payload(1, 2, 3))).toBe("A");
    // Another chunk under the same key (another database, one recreated): decoded afresh, and the old one gone.
    expect(cache.get("a", payload(1, 2, 4))).toBeUndefined();
    expect(cache.stats).toEqual({ entries: 0, bytes: 0 });
  });

  it("freezes a decoded state through and through, so no reader changes what the others share", () => {
    const shared = { id: "m1", outcomes: [{ id: "h", price: 1.5 }] };
    const state = deepFreeze([shared, { id: "m2", outcomes: [] as unknown[] }]);
    expect(() => {
      (state[0]!.outcomes[0] as { price: number }).price = 2;
    }).toThrow(TypeError);
    expect(() => (state as unknown[]).push(1)).toThrow(TypeError);
    expect(Object.isFrozen(shared.outcomes)).toBe(true);
  });
});
