import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import {
  acceptedTimeStep,
  looksLikeRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpUri,
} from "./codes.ts";
import { sealingKey, seal, unseal } from "./sealing.ts";
import { policyRequires } from "./policy.ts";
import { recentEnough, STEP_UP_SECONDS } from "./step-up.ts";

const at = new Date("2026-11-28T12:00:10Z");
const codeAt = (secret: string, when: Date) => generate({ secret, epoch: Math.floor(when.getTime() / 1000) });

describe("authenticator codes", () => {
  it("accepts the current code and the neighbouring periods' codes, each once after the last", async () => {
    const secret = newTotpSecret();
    const step = await acceptedTimeStep(secret, await codeAt(secret, at), at, null);
    expect(step).toBe(Math.floor(at.getTime() / 30_000));
    // The same code again, or an older one, is refused once a code of its period was accepted.
    expect(await acceptedTimeStep(secret, await codeAt(secret, at), at, step)).toBeNull();
    expect(await acceptedTimeStep(secret, await codeAt(secret, new Date(at.getTime() - 30_000)), at, step)).toBeNull();
    // The next period's code is still accepted.
    const next = new Date(at.getTime() + 30_000);
    expect(await acceptedTimeStep(secret, await codeAt(secret, next), next, step)).toBe(step! + 1);
  });

  it("refuses a code two periods old, a malformed one, and any after a clock set back", async () => {
    const secret = newTotpSecret();
    expect(await acceptedTimeStep(secret, await codeAt(secret, new Date(at.getTime() - 90_000)), at, null)).toBeNull();
    expect(await acceptedTimeStep(secret, "12345", at, null)).toBeNull();
    expect(await acceptedTimeStep(secret, "abcdef", at, null)).toBeNull();
    expect(await acceptedTimeStep(secret, await codeAt(secret, at), at, 10 ** 9)).toBeNull();
  });

  it("names the account and the service in the otpauth address", () => {
    expect(totpUri("JBSWY3DPEHPK3PXP", "ana@example.com", "Sports Event Data")).toMatch(
      /^otpauth:\/\/totp\/Sports%20Event%20Data:ana%40example\.com\?.*secret=JBSWY3DPEHPK3PXP/,
    );
  });
});

describe("recovery codes", () => {
  it("are ten distinct codes, hashed whatever the case and dashes typed", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[2-9A-HJ-NP-Z]{5}-[2-9A-HJ-NP-Z]{5}$/);
    const [code] = codes;
    expect(recoveryCodeHash(code!.toLowerCase().replace("-", " "))).toBe(recoveryCodeHash(code!));
    expect(looksLikeRecoveryCode(code!)).toBe(true);
    expect(looksLikeRecoveryCode("123 456")).toBe(false);
  });
});

describe("sealing", () => {
  it("opens under the same secret only, and refuses an altered text", () => {
    const key = sealingKey("a secret of the instance");
    const sealed = seal(key, "JBSWY3DPEHPK3PXP");
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(unseal(key, sealed)).toBe("JBSWY3DPEHPK3PXP");
    expect(unseal(sealingKey("another secret"), sealed)).toBeNull();
    // One bit flipped in the decoded bytes: a changed base64 character may carry only padding bits
    // and decode to the same bytes (a test that altered the text's last two characters so passed
    // with about one seal in 270).
    const [version, iv, body, tag] = sealed.split(".") as [string, string, string, string];
    const flipped = (part: string) => {
      const bytes = Buffer.from(part, "base64url");
      bytes[0]! ^= 1;
      return bytes.toString("base64url");
    };
    expect(unseal(key, [version, iv, body, flipped(tag)].join("."))).toBeNull();
    expect(unseal(key, [version, iv, flipped(body), tag].join("."))).toBeNull();
    expect(unseal(key, [version, flipped(iv), body, tag].join("."))).toBeNull();
  });
});

describe("policy and step-up", () => {
  it("asks admins or everyone as the policy says", () => {
    expect(policyRequires("none", "admin")).toBe(false);
    expect(policyRequires("admins", "admin")).toBe(true);
    expect(policyRequires("admins", "viewer")).toBe(false);
    expect(policyRequires("all", "viewer")).toBe(true);
  });

  it("takes a second factor as recent for ten minutes", () => {
    expect(recentEnough(null, at)).toBe(false);
    expect(recentEnough(new Date(at.getTime() - STEP_UP_SECONDS * 1000), at)).toBe(true);
    expect(recentEnough(new Date(at.getTime() - STEP_UP_SECONDS * 1000 - 1), at)).toBe(false);
  });
});
