import { describe, expect, it } from "vitest";
import { scryptSync } from "node:crypto";
import { hashPassword, hashPasswordsFast, needsRehash, PASSWORD_MAX_LENGTH, verifyPassword } from "./password.ts";

// A hash takes 128 MiB and up to seconds on a busy machine.
describe("password hashing", { timeout: 60_000 }, () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", hash)).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same password")).not.toBe(await hashPassword("same password"));
  });

  it("treats a composed and a decomposed accent as the same password", async () => {
    const hash = await hashPassword("caf\u00e9 au lait!");
    expect(await verifyPassword("cafe\u0301 au lait!", hash)).toBe(true);
  });

  it("refuses malformed stored hashes instead of throwing", async () => {
    expect(await verifyPassword("x", "plain-text")).toBe(false);
    expect(await verifyPassword("x", "bcrypt$1$2$3$abc$def")).toBe(false);
  });

  it("uses at least OWASP's minimum for scrypt (N = 2^17, r = 8, p = 1)", async () => {
    const [, n, r, p] = (await hashPassword("a password of some length")).split("$").map(Number);
    expect(n).toBeGreaterThanOrEqual(2 ** 17);
    expect(r).toBeGreaterThanOrEqual(8);
    expect(p).toBe(1);
  });

  it("still accepts a hash made with older, weaker parameters, and says it needs replacing", async () => {
    const salt = Buffer.from("0123456789abcdef");
    const key = scryptSync("an older password", salt, 64, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const old = ["scrypt", 2 ** 15, 8, 1, salt.toString("base64"), key.toString("base64")].join("$");
    expect(await verifyPassword("an older password", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(await hashPassword("an older password"))).toBe(false);
  });

  it("hashes at a test's cost only when asked, and replaces such a hash once the setting is off", async () => {
    hashPasswordsFast(true);
    let fast: string;
    try {
      fast = await hashPassword("a password for a test");
      expect(fast).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(needsRehash(fast)).toBe(false);
    } finally {
      hashPasswordsFast(false);
    }
    expect(await verifyPassword("a password for a test", fast)).toBe(true);
    expect(needsRehash(fast)).toBe(true);
    expect(await hashPassword("a password for a test")).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it("refuses passwords longer than the cap before hashing them", async () => {
    const long = "x".repeat(PASSWORD_MAX_LENGTH + 1);
    await expect(hashPassword(long)).rejects.toThrow(RangeError);
    const hash = await hashPassword(long.slice(1));
    expect(await verifyPassword(long.slice(1), hash)).toBe(true);
    expect(await verifyPassword(long, hash)).toBe(false);
  });

  it("refuses stored parameters that would take gigabytes to check", async () => {
    expect(await verifyPassword("x", `scrypt$${2 ** 24}$8$1$YWJj$ZGVm`)).toBe(false);
  });
});
