import { createHash, randomInt } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";

// Authenticator codes (RFC 6238: six digits, 30 seconds) and recovery codes, without I/O.

export const TOTP_PERIOD_SECONDS = 30;
/** A code from the period before or after is accepted too: a phone's clock and typing take time. */
const TOLERANCE_SECONDS = TOTP_PERIOD_SECONDS;

export const RECOVERY_CODE_COUNT = 10;
// No 0/O, 1/I/L: codes are read off paper.
const RECOVERY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

export function newTotpSecret(): string {
  return generateSecret();
}

/** The otpauth:// address an authenticator app reads from the QR code. */
export function totpUri(secret: string, account: string, issuer: string): string {
  return generateURI({ issuer, label: account, secret });
}

/** A code as typed: spaces and dashes dropped. */
export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, "").toUpperCase();
}

/**
 * The time step of a valid code that is newer than `afterTimeStep` (the last code accepted), or
 * null: a code is accepted once, and never one older than the last.
 */
export async function acceptedTimeStep(
  secret: string,
  code: string,
  at: Date,
  afterTimeStep: number | null,
): Promise<number | null> {
  const token = normaliseCode(code);
  if (!/^\d{6}$/.test(token)) return null;
  const epoch = Math.floor(at.getTime() / 1000);
  // A last code newer than any acceptable now (a clock set back) leaves nothing to accept.
  const newest = Math.floor((epoch + TOLERANCE_SECONDS) / TOTP_PERIOD_SECONDS);
  if (afterTimeStep !== null && afterTimeStep >= newest) return null;
  const result = await verify({
    secret,
    token,
    epoch,
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterTimeStep === null ? {} : { afterTimeStep }),
  });
  // A TOTP result carries the start of the period the code matched.
  return result.valid && "epoch" in result ? Math.floor(result.epoch / TOTP_PERIOD_SECONDS) : null;
}

/** Ten codes of ten characters (about 49 bits each), shown as two groups of five. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** What is stored of a recovery code: random enough that a plain SHA-256 cannot be reversed. */
export function recoveryCodeHash(code: string): string {
  return createHash("sha256").update(normaliseCode(code)).digest("hex");
}

/** Whether a typed code looks like a recovery code rather than an authenticator code. */
export function looksLikeRecoveryCode(code: string): boolean {
  return normaliseCode(code).length === 10;
}
