import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KeyHashIndex } from "./hash-index.ts";

const sha256 = (value: string | Buffer) => createHash("sha256").update(value).digest("hex");

describe("the index of every key's hash", () => {
  it("knows every hash added, and no other", () => {
    const index = new KeyHashIndex();
    const added = Array.from({ length: 5_000 }, (_, i) => sha256(`key-${i}`));
    for (const hash of added) index.add(hash);
    index.add(added[0]!);
    expect(index.size).toBe(5_000);
    for (const hash of added) expect(index.has(hash)).toBe(true);
    for (let i = 0; i < 5_000; i++) expect(index.has(sha256(`guess-${i}`))).toBe(false);
  });

  // The bound of keeping every key on every instance, in memory; `npm run bench:key-index` measures a
  // million keys and the lookup time against a Set.
  it("holds many keys in at most 32 bytes each, and finds each of them", { timeout: 60_000 }, () => {
    const KEYS = 50_000;
    const index = new KeyHashIndex();
    const hashes = Array.from({ length: KEYS }, (_, i) => sha256(`key-${i}`));
    for (const hash of hashes) index.add(hash);
    expect(index.size).toBe(KEYS);
    expect(index.bytes / KEYS).toBeLessThanOrEqual(32);
    expect(hashes.every((hash) => index.has(hash))).toBe(true);
    const guesses = Array.from({ length: KEYS }, (_, i) => sha256(`guess-${i}-${randomBytes(4).toString("hex")}`));
    expect(guesses.filter((hash) => index.has(hash)).length).toBeLessThanOrEqual(1);
  });
});
