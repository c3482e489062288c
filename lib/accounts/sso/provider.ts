import "#server-only";
import * as oidc from "openid-client";
import { DomainError } from "../../errors.ts";
import { refusedUrl } from "../../ops/webhooks/addresses.ts";

// The organisation's OpenID Connect provider, discovered from its issuer URL at each use: the
// configuration is the organisation's, read at sign-in, so nothing is fixed at start (why
// next-auth's own provider, built once from the environment, does not serve: docs/security.md).

/** How the server may reach issuers: `allowPrivate` (SSO_ALLOW_PRIVATE) lets plain http and private addresses through. */
export type IssuerAccess = { allowPrivate: boolean };

/** Why an issuer URL is refused, in words, or null. Public https only, unless private ones are allowed. */
export async function refusedIssuer(issuer: string, access: IssuerAccess): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(issuer);
  } catch {
    return "is not a URL";
  }
  if (!access.allowPrivate && parsed.protocol !== "https:") return "must be an https:// URL";
  if (parsed.search || parsed.hash) return "must have neither a query nor a fragment";
  // The same rule as webhook endpoints: the server must not be made to fetch from its own network.
  return refusedUrl(issuer, access.allowPrivate);
}

/**
 * The provider's configuration from its discovery document, with the client's credentials. The
 * secret goes by HTTP Basic unless the provider lists only client_secret_post. openid-client checks
 * that the document names the issuer it was fetched for, and (non-repudiation checks on) every ID
 * token's signature against the keys at its `jwks_uri`.
 */
export async function discoverProvider(
  connection: { issuer: string; clientId: string; clientSecret: string },
  access: IssuerAccess,
): Promise<oidc.Configuration> {
  const refused = await refusedIssuer(connection.issuer, access);
  if (refused) throw new DomainError("invalid_input", `The issuer URL ${refused}.`);
  const options: oidc.DiscoveryRequestOptions = {
    // The ID token's signature is checked against the provider's published keys even though it
    // comes straight from the token endpoint: openid-client would otherwise rely on TLS alone,
    // which an http issuer (SSO_ALLOW_PRIVATE) does not have.
    execute: [oidc.enableNonRepudiationChecks, ...(access.allowPrivate ? [oidc.allowInsecureRequests] : [])],
    [oidc.customFetch]: (url: string, init: oidc.CustomFetchOptions) =>
      fetch(url, { ...(init as RequestInit), signal: AbortSignal.timeout(10_000) }),
  };
  const config = await oidc.discovery(
    new URL(connection.issuer),
    connection.clientId,
    undefined,
    oidc.ClientSecretBasic(connection.clientSecret),
    options,
  );
  const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
  if (methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) {
    return oidc.discovery(
      new URL(connection.issuer),
      connection.clientId,
      undefined,
      oidc.ClientSecretPost(connection.clientSecret),
      options,
    );
  }
  return config;
}

export { oidc };
