// The reasons a single sign-on callback signed no one in, and how the sign-in page words them: the
// callback sends only the code (?sso=state), so no text from a link is ever shown.

/** Why a callback signed no one in; the sign-in page words each (SSO_REFUSALS). */
export type SsoRefusal = "state" | "provider" | "token" | "email" | "domain" | "account" | "unavailable";

export const SSO_REFUSALS: Record<SsoRefusal, string> = {
  state: "That single sign-on was already used, took too long or began in another browser. Start again.",
  provider: "Your provider did not sign you in. Start again, or sign in with your password.",
  token:
    "Your provider's answer could not be verified. Start again; if it keeps failing, ask your admin to check the single sign-on settings.",
  email: "Your provider did not confirm your e-mail address.",
  domain: "Your provider signed you in with an address outside your organisation's verified domains.",
  account: "That address has an account in another organisation: sign in there with its password.",
  unavailable: "Single sign-on is not available for your organisation right now. Sign in with your password.",
};

/** The words for a code from the sign-in page's address, or null for anything else. */
export function ssoRefusalMessage(code: unknown): string | null {
  return typeof code === "string" && Object.hasOwn(SSO_REFUSALS, code) ? SSO_REFUSALS[code as SsoRefusal] : null;
}
