import { maskCredentials } from "../../log/credentials.ts";

// What the request log keeps of a request's path and query: never a credential. A parameter whose
// name says it carries one is kept with its value masked (its holder sees it was sent), and any
// value or path segment that looks like one of our keys or stream tokens is masked wherever it is.

/** Query parameter names whose values are masked, compared in lower case with `-` read as `_`. */
const CREDENTIAL_NAMES = new Set([
  "api_key",
  "apikey",
  "key",
  "x_api_key",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "stream_token",
  "auth",
  "authorization",
  "bearer",
  "secret",
  "client_secret",
  "password",
  "passwd",
  "session",
  "session_token",
  "signature",
  "sig",
  "code",
]);

/** Names that carry a credential whatever else they say (`my_token`, `webhook_secret`). */
const CREDENTIAL_WORDS = /(key|token|secret|password|passwd|auth|session|signature|credential)/;

export const MASK = "***";

/** The longest path kept: longer ones are cut (a request's log line, not its archive). */
export const PATH_MAX = 1024;

function credentialName(name: string): boolean {
  const normal = name.toLowerCase().replaceAll("-", "_");
  return CREDENTIAL_NAMES.has(normal) || CREDENTIAL_WORDS.test(normal);
}

/** Our keys (svc_sb_, svc_sk_), stream tokens (svc_st_) and webhook secrets (whsec_), anywhere, encoded or not. */
function maskValues(text: string): string {
  return maskCredentials(text, MASK);
}

/** The path and query to store: credentials masked, at most PATH_MAX characters. */
export function redactedTarget(path: string, query: Iterable<[string, string]>): string {
  let target = maskValues(path);
  const pairs: string[] = [];
  for (const [name, value] of query) {
    const kept = credentialName(name) ? MASK : maskValues(value);
    pairs.push(`${encodeURIComponent(maskValues(name))}=${kept === MASK ? MASK : encodeURIComponent(kept)}`);
  }
  if (pairs.length > 0) target += `?${pairs.join("&")}`;
  return target.length > PATH_MAX ? `${target.slice(0, PATH_MAX - 1)}…` : target;
}
