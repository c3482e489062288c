import "#server-only";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { and, asc, eq, isNotNull, lt } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/index.ts";
import { passkeyChallenges, secondFactors, type PasskeyPurpose } from "../../db/schema/index.ts";
import { newId } from "../../ids.ts";
import { logger } from "../../log/index.ts";
import { TOTP_ISSUER } from "./store.ts";

// Passkeys (WebAuthn) through @simplewebauthn/server: the relying party, the challenges kept
// server-side for each ceremony, and the two ceremonies' checks against the member's credentials.

/** Who the passkeys are for: the service's address (NEXTAUTH_URL) and its host name. */
export type RelyingParty = { id: string; origin: string; name: string };

/** The relying party of the service at `origin`. Pure. */
export function relyingParty(origin: string): RelyingParty {
  const url = new URL(origin);
  return { id: url.hostname, origin: url.origin, name: TOTP_ISSUER };
}

/** How long a ceremony's challenge may be answered: a browser's prompt and a touch. */
export const CHALLENGE_SECONDS = 5 * 60;

/** Who may answer a challenge: the session and user that asked, or anyone (a sign-in with a passkey alone). */
export type ChallengeHolder = { userId: string; sessionId: string } | null;

async function issueChallenge(
  db: Database,
  purpose: PasskeyPurpose,
  holder: ChallengeHolder,
  challenge: string,
  at: Date,
): Promise<string> {
  const id = newId("pkc");
  await db.transaction(async (tx) => {
    // Unanswered ones go as new ones come, keeping the table the size of a few minutes' sign-ins.
    await tx.delete(passkeyChallenges).where(lt(passkeyChallenges.expiresAt, at));
    await tx.insert(passkeyChallenges).values({
      id,
      challenge,
      purpose,
      userId: holder?.userId ?? null,
      sessionId: holder?.sessionId ?? null,
      expiresAt: new Date(at.getTime() + CHALLENGE_SECONDS * 1000),
      createdAt: at,
    });
  });
  return id;
}

/**
 * Takes a challenge for its answer: once (a delete, so a replayed answer finds none), before it
 * expires, for the purpose and holder it was made for. Null when there is none such.
 */
async function takeChallenge(
  db: Database,
  id: string,
  purpose: PasskeyPurpose,
  holder: ChallengeHolder,
  at: Date,
): Promise<string | null> {
  const [taken] = await db
    .delete(passkeyChallenges)
    .where(and(eq(passkeyChallenges.id, id), eq(passkeyChallenges.purpose, purpose)))
    .returning();
  if (!taken || taken.expiresAt <= at) return null;
  if ((taken.userId ?? null) !== (holder?.userId ?? null)) return null;
  if ((taken.sessionId ?? null) !== (holder?.sessionId ?? null)) return null;
  return taken.challenge;
}

// The browser's answers, as @simplewebauthn/browser sends them: checked for shape and size here,
// for meaning by the library.
const b64 = z
  .string()
  .max(16_000)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/);
const credentialShape = {
  id: b64.max(1400),
  rawId: b64.max(1400),
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
};
const registrationResponse = z.object({
  ...credentialShape,
  response: z.object({
    clientDataJSON: b64,
    attestationObject: b64,
    transports: z.array(z.string().max(20)).max(10).optional(),
    authenticatorData: b64.optional(),
    publicKey: b64.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
  }),
});
const authenticationResponse = z.object({
  ...credentialShape,
  response: z.object({
    clientDataJSON: b64,
    authenticatorData: b64,
    signature: b64,
    userHandle: b64.optional(),
  }),
});

/** The browser's answer, sent as JSON text; null when it is not one. */
function parseAnswer<T extends z.ZodType>(schema: T, text: string): z.infer<T> | null {
  if (text.length > 40_000) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type Ceremony<T> = { challengeId: string; options: T };

/** Options for adding a passkey: discoverable (so it can sign in alone), none of the member's twice. */
export async function registrationCeremony(
  db: Database,
  rp: RelyingParty,
  user: { id: string; email: string },
  sessionId: string,
  at: Date,
): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
  const existing = await passkeysOf(db, user.id);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    // The user handle a discoverable passkey gives back at sign-in: the user's id, nothing personal.
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    timeout: CHALLENGE_SECONDS * 1000,
  });
  const challengeId = await issueChallenge(db, "register", { userId: user.id, sessionId }, options.challenge, at);
  return { challengeId, options };
}

export type NewPasskey = { credentialId: string; publicKey: string; signCount: number };

/** Checks the browser's answer to a registration ceremony; the credential to store, or null. */
export async function verifyRegistration(
  db: Database,
  rp: RelyingParty,
  holder: { userId: string; sessionId: string },
  input: { challengeId: string; response: string },
  at: Date,
): Promise<NewPasskey | null> {
  const response = parseAnswer(registrationResponse, input.response);
  const challenge = await takeChallenge(db, input.challengeId, "register", holder, at);
  if (!response || !challenge) return null;
  try {
    const verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    if (!verified.verified) return null;
    const { credential } = verified.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: isoBase64URL.fromBuffer(credential.publicKey),
      signCount: credential.counter,
    };
  } catch (error) {
    logger().info({ err: error }, "A passkey's registration was refused");
    return null;
  }
}

/**
 * Options for using a passkey. For a session (the second step, a step-up) the member's own passkeys
 * are listed; for a sign-in with a passkey alone none are (the browser offers what it holds for
 * this site), and the authenticator must verify the user, since the passkey is both factors then.
 */
export async function authenticationCeremony(
  db: Database,
  rp: RelyingParty,
  purpose: Exclude<PasskeyPurpose, "register">,
  holder: ChallengeHolder,
  at: Date,
): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  const allow = holder ? await passkeysOf(db, holder.userId) : [];
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: allow.map((passkey) => ({ id: passkey.credentialId })),
    userVerification: holder ? "preferred" : "required",
    timeout: CHALLENGE_SECONDS * 1000,
  });
  const challengeId = await issueChallenge(db, purpose, holder, options.challenge, at);
  return { challengeId, options };
}

export type PasskeyUse = { userId: string; factorId: string; name: string };

/**
 * Checks the browser's answer to an authentication ceremony against the passkey it names: the
 * challenge (once), origin, relying party, signature and signature counter, and for a session
 * that the passkey is its member's. The counter and last use are stored by a conditional update,
 * so of two uses of one answer only one passes. Null when refused.
 */
export async function verifyAuthentication(
  db: Database,
  rp: RelyingParty,
  purpose: Exclude<PasskeyPurpose, "register">,
  holder: ChallengeHolder,
  input: { challengeId: string; response: string },
  at: Date,
): Promise<PasskeyUse | null> {
  const response = parseAnswer(authenticationResponse, input.response);
  const challenge = await takeChallenge(db, input.challengeId, purpose, holder, at);
  if (!response || !challenge) return null;
  const [passkey] = await db
    .select()
    .from(secondFactors)
    .where(
      and(
        eq(secondFactors.credentialId, response.id),
        eq(secondFactors.kind, "passkey"),
        isNotNull(secondFactors.confirmedAt),
      ),
    );
  if (!passkey?.publicKey || passkey.signCount === null) return null;
  if (holder && passkey.userId !== holder.userId) return null;
  // A discoverable passkey names its user: it must be the one the credential was added for.
  const handle = response.response.userHandle;
  if (handle && isoBase64URL.toUTF8String(handle) !== passkey.userId) return null;
  try {
    const verified = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId!,
        publicKey: isoBase64URL.toBuffer(passkey.publicKey),
        counter: passkey.signCount,
      },
      requireUserVerification: holder === null,
    });
    if (!verified.verified) return null;
    const [used] = await db
      .update(secondFactors)
      .set({ signCount: verified.authenticationInfo.newCounter, lastUsedAt: at })
      .where(and(eq(secondFactors.id, passkey.id), eq(secondFactors.signCount, passkey.signCount)))
      .returning({ id: secondFactors.id });
    return used ? { userId: passkey.userId, factorId: passkey.id, name: passkey.name } : null;
  } catch (error) {
    // A wrong signature, origin or relying party, or a counter that went back (a cloned authenticator).
    logger().info({ err: error }, "A passkey's use was refused");
    return null;
  }
}

/** The member's confirmed passkeys, oldest first. */
async function passkeysOf(db: Database, userId: string): Promise<{ credentialId: string }[]> {
  const rows = await db
    .select({ credentialId: secondFactors.credentialId })
    .from(secondFactors)
    .where(
      and(eq(secondFactors.userId, userId), eq(secondFactors.kind, "passkey"), isNotNull(secondFactors.confirmedAt)),
    )
    .orderBy(asc(secondFactors.createdAt));
  return rows.flatMap((row) => (row.credentialId ? [{ credentialId: row.credentialId }] : []));
}

/** Whether the member has a passkey (the second step then offers it). */
export async function hasPasskey(db: Database, userId: string): Promise<boolean> {
  return (await passkeysOf(db, userId)).length > 0;
}
