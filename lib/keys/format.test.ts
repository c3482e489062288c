import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BASE62 } from "../ids.ts";
import { checkKeyFormat, generateKey, hashKey, KEY_LENGTH, keyHint } from "./format.ts";

describe("API key format", () => {
  it("is the prefix and 32 base62 characters, with the environment in the prefix", () => {
    const sandbox = generateKey("sandbox");
    const production = generateKey("production");
    expect(sandbox).toMatch(/^svc_sb_[0-9A-Za-z]{32}$/);
    expect(production).toMatch(/^svc_sk_[0-9A-Za-z]{32}$/);
    expect(sandbox).toHaveLength(KEY_LENGTH);
    expect(checkKeyFormat(sandbox)).toBe("sandbox");
    expect(checkKeyFormat(production)).toBe("production");
  });

  it("never repeats and uses the whole alphabet evenly", () => {
    const keys = Array.from({ length: 2000 }, () => generateKey("production"));
    expect(new Set(keys).size).toBe(keys.length);
    const counts = new Map<string, number>();
    for (const key of keys) for (const char of key.slice(7, 33)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 52,000 characters over 62 symbols: about 839 each; a biased generator drifts far from that.
    for (const count of counts.values()) expect(count).toBeGreaterThan(650);
  });

  it("rejects every single-character typo through the checksum", () => {
    const key = generateKey("production");
    let rejected = 0;
    let tried = 0;
    for (let i = 7; i < key.length; i++) {
      for (const char of BASE62) {
        if (char === key[i]) continue;
        tried++;
        if (checkKeyFormat(key.slice(0, i) + char + key.slice(i + 1)) === null) rejected++;
      }
    }
    expect(rejected).toBe(tried);
  });

  it.each([
    "",
    "svc_sb_",
    "svc_xx_0123456789abcdefghijklmnopqrstuv",
    "sk_live_abc",
    "svc_sk_" + "a".repeat(31),
    "svc_sk_" + "a".repeat(33),
  ])("rejects %j", (value) => expect(checkKeyFormat(value)).toBeNull());

  it("checksums the 32 characters after the prefix, so a swapped prefix is caught by the hash lookup instead", () => {
    const key = generateKey("sandbox");
    const swapped = key.replace("svc_sb_", "svc_sk_");
    expect(checkKeyFormat(swapped)).toBe("production");
    expect(hashKey(swapped)).not.toBe(hashKey(key));
    expect(checkKeyFormat(key.replace("svc_sb_", "svc_sx_"))).toBeNull();
  });

  it("hashes with SHA-256 in hex and hints with the prefix and last four", () => {
    const key = generateKey("sandbox");
    expect(hashKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
    expect(keyHint(key)).toBe(`svc_sb_…${key.slice(-4)}`);
  });
});
