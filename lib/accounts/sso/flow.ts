import "#server-only";
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { recordAudit } from "../audit.ts";
import type { Database } from "../../db/index.ts";
import { memberships, ssoFlows } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { randomBase62 } from "../../ids.ts";
import { hashKey } from "../../keys/format.ts";
import { logger } from "../../log/index.ts";
import { openSession, markSecondFactor } from "../factors/gate.ts";
import { hashPassword } from "../auth/password.ts";
import { email as emailSchema, findUserByEmail, insertMember } from "../users.ts";
import { connectionWithSecret, emailDomain, requireSsoPlan, verifiedOwner } from "./connections.ts";
import { discoverProvider, oidc, type IssuerAccess } from "./provider.ts";
import { SSO_REFUSALS, type SsoRefusal } from "./refusals.ts";

// Signing in through the organisation's provider: the authorization code flow with PKCE. `state`,
// `nonce` and the PKCE verifier are kept here, server-side, for SSO_FLOW_SECONDS and used once;
// the browser that began holds a cookie whose hash the flow keeps, so a callback opened in another
// browser (a link an attacker sends, to sign the victim in as the attacker) is refused.
// openid-client checks the ID token: signature against the provider's keys, issuer, audience,
// expiry and nonce.

export const SSO_FLOW_SECONDS = 10 * 60;

export type SsoContext = { at: Date; key: Buffer; access: IssuerAccess; redirectUri: string };

/**
 * Begins a sign-in for an e-mail address (or a bare domain) whose domain an organisation has
 * verified: the provider's authorization URL, and the browser's token for its cookie.
 */
export async function beginSso(
  db: Database,
  input: { email: string; returnTo: string },
  context: SsoContext,
): Promise<{ url: string; browser: string }> {
  const text = input.email.trim().toLowerCase().slice(0, 254);
  const domain = text.includes("@") ? emailDomain(text) : text;
  const orgId = domain ? await verifiedOwner(db, domain) : null;
  const connection = orgId ? await connectionWithSecret(db, orgId, context.key) : null;
  if (!orgId || !connection) {
    throw new DomainError(
      "not_found",
      "No single sign-on is set up for that address's domain. Sign in with your password.",
    );
  }
  await requireSsoPlan(db, orgId);
  let config: oidc.Configuration;
  try {
    config = await discoverProvider(connection, context.access);
  } catch (error) {
    logger().warn({ err: error, orgId }, "The single sign-on provider could not be discovered");
    throw new DomainError("invalid_input", SSO_REFUSALS.unavailable);
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const browser = randomBase62(32);
  await db.transaction(async (tx) => {
    await tx
      .delete(ssoFlows)
      .where(lt(ssoFlows.createdAt, new Date(context.at.getTime() - 2 * SSO_FLOW_SECONDS * 1000)));
    await tx.insert(ssoFlows).values({
      stateHash: hashKey(state),
      orgId,
      browserHash: hashKey(browser),
      nonce,
      codeVerifier,
      returnTo: input.returnTo,
      createdAt: context.at,
    });
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: context.redirectUri,
    response_type: "code",
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    // The provider may show who is signing in; it may ignore this.
    ...(text.includes("@") ? { login_hint: text } : {}),
  });
  return { url: url.href, browser };
}

export type SsoResult =
  | { ok: true; userId: string; sessionId: string; returnTo: string; joined: boolean }
  | { ok: false; reason: SsoRefusal };

/**
 * Finishes a sign-in at the callback: the flow its `state` names (once, in time, from the browser
 * that began it), the code exchanged with the PKCE verifier, the ID token verified, then the
 * address: in a domain the organisation verified, confirmed by the provider where it says. An
 * existing member signs in; a new address joins as the organisation's chosen role. The session it
 * opens is past both steps: the provider is the organisation's own say on how its people sign in.
 */
export async function finishSso(
  db: Database,
  input: { callbackUrl: URL; browser: string | undefined; address: string },
  context: SsoContext,
): Promise<SsoResult> {
  const state = input.callbackUrl.searchParams.get("state") ?? "";
  if (!state || !input.browser || state.length > 200) return { ok: false, reason: "state" };
  const [flow] = await db
    .update(ssoFlows)
    .set({ usedAt: context.at })
    .where(
      and(
        eq(ssoFlows.stateHash, hashKey(state)),
        eq(ssoFlows.browserHash, hashKey(input.browser.slice(0, 100))),
        isNull(ssoFlows.usedAt),
        gt(ssoFlows.createdAt, new Date(context.at.getTime() - SSO_FLOW_SECONDS * 1000)),
      ),
    )
    .returning();
  if (!flow) return { ok: false, reason: "state" };
  if (input.callbackUrl.searchParams.has("error")) return { ok: false, reason: "provider" };
  const connection = await connectionWithSecret(db, flow.orgId, context.key);
  if (!connection) return { ok: false, reason: "unavailable" };

  let claims: Record<string, unknown>;
  try {
    const config = await discoverProvider(connection, context.access);
    // The URL the provider redirected to, as registered (a proxy in front may have changed the request's own).
    const current = new URL(context.redirectUri);
    current.search = input.callbackUrl.search;
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    claims = { ...idToken };
    // Providers may keep the address for the userinfo endpoint (as the spec has it for the code flow).
    if (typeof claims.email !== "string") {
      claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
    }
  } catch (error) {
    logger().warn({ err: error, orgId: flow.orgId }, "A single sign-on answer was refused");
    return { ok: false, reason: "token" };
  }

  const parsed = emailSchema.safeParse(claims.email);
  if (!parsed.success || claims.email_verified === false) return { ok: false, reason: "email" };
  const address = parsed.data;
  if ((await verifiedOwner(db, emailDomain(address))) !== flow.orgId) return { ok: false, reason: "domain" };

  let joined = false;
  let user = await findUserByEmail(db, address);
  if (user) {
    const [membership] = await db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.userId, user.id), eq(memberships.orgId, flow.orgId)));
    if (!membership) return { ok: false, reason: "account" };
  } else {
    const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 200) : address;
    // No password anyone knows: the member signs in through the provider (or sets one by a reset link).
    const passwordHash = await hashPassword(randomBase62(40));
    user = await insertMember(
      db,
      { orgId: flow.orgId, email: address, name, passwordHash, role: connection.joinRole },
      // Recorded as the new member's own act, as an accepted invitation is: they joined.
      { userId: null, label: address },
    );
    joined = true;
  }
  await recordAudit(db, {
    orgId: flow.orgId,
    actor: { userId: user.id, label: user.email },
    action: "user.signed_in",
    target: user.id,
    details: { by: "single sign-on", issuer: connection.issuer, address: input.address },
  });
  const session = await openSession(db, user.id, context.at);
  await markSecondFactor(db, session.id, context.at);
  return { ok: true, userId: user.id, sessionId: session.id, returnTo: flow.returnTo, joined };
}
