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

  // The bound of keeping every key on every instance: a million keys, in memory and in lookup time.
  it("holds a million keys in at most 32 bytes each, looked up without a read", { timeout: 120_000 }, () => {
    const KEYS = 1_000_000;
    const index = new KeyHashIndex(KEYS);
    const hashes: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const hash = sha256(`key-${i}`);
      hashes.push(hash);
      index.add(hash);
    }
    expect(index.size).toBe(KEYS);
    expect(index.bytes / KEYS).toBeLessThanOrEqual(32);
    const guesses = Array.from({ length: 100_000 }, (_, i) => sha256(`guess-${i}-${randomBytes(4).toString("hex")}`));
    const started = process.hrtime.bigint();
    let found = 0;
    for (const hash of guesses) if (index.has(hash)) found++;
    for (let i = 0; i < 100_000; i++) if (index.has(hashes[i]!)) found++;
    const nsPerLookup = Number(process.hrtime.bigint() - started) / 200_000;
    expect(found).toBe(100_000);
    // Indicative only (a shared machine): printed for docs/security.md, not asserted.
    console.info(
      `key hash index: ${KEYS} keys, ${(index.bytes / 2 ** 20).toFixed(1)} MiB (${index.bytes / KEYS} B a key), ${nsPerLookup.toFixed(0)} ns a lookup`,
    );
  });
});
