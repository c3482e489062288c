import { encode } from "next-auth/jwt";
import { authSecret } from "@/lib/accounts/auth/secret";
import { sealingKey } from "@/lib/accounts/factors/sealing";
import type { SsoContext } from "@/lib/accounts/sso/flow";
import { SESSION_LIFETIME } from "@/lib/accounts/sessions";
import { now } from "@/lib/clock";
import { currentInstance } from "@/lib/instance";
import { publicOrigin } from "./origin";

/** Where the provider sends the browser back, registered with the provider as the redirect URI. */
export const SSO_CALLBACK_PATH = "/api/sso/callback";

/** What a sign-in through the organisation's provider needs of the instance, read now. */
export async function ssoContext(): Promise<SsoContext & { secure: boolean }> {
  const config = currentInstance().config;
  const origin = await publicOrigin();
  return {
    at: now(),
    key: sealingKey(authSecret(config)),
    access: { allowPrivate: config.SSO_ALLOW_PRIVATE === "1" },
    redirectUri: `${origin}${SSO_CALLBACK_PATH}`,
    secure: origin.startsWith("https://"),
  };
}

/** The cookie that ties a sign-in under way to the browser that began it. */
export function browserCookieName(secure: boolean): string {
  return secure ? "__Host-sso-browser" : "sso-browser";
}

/**
 * The console's session cookie for a session the provider opened, as next-auth writes it after a
 * password (the same name, encryption and claims: the user's id, when they signed in and the
 * session's id), so every later request goes through next-auth's checks as any session does.
 */
export async function sessionCookie(
  userId: string,
  sessionId: string,
  secure: boolean,
): Promise<{ name: string; value: string; maxAge: number }> {
  const maxAge = SESSION_LIFETIME.idleSeconds;
  const value = await encode({
    token: { sub: userId, signed_in_at: now().getTime(), sid: sessionId },
    secret: authSecret(currentInstance().config),
    maxAge,
  });
  return { name: `${secure ? "__Secure-" : ""}next-auth.session-token`, value, maxAge };
}
