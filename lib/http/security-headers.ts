// The security headers of everything the server sends: constant strings, built once. Pages get
// them from next.config.ts (every response Next sends) and proxy.ts (the Content-Security-Policy,
// which carries a fresh nonce per page); API, health and metrics answers get the JSON set.

/** Sent on every answer served over https (server.ts decides). */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

/** Answers that are data, never a document: nothing in them may load, run or be framed. */
export const JSON_SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
} as const;

/**
 * CORS of /api/v1: any origin may read the API with a key it sends in a header, never with
 * cookies (no Access-Control-Allow-Credentials, and `*` forbids credentialed reads anyway). A key
 * is only ever in a page because its holder put it there; the console's session cookie is not
 * accepted from other origins at all (lib/api/request/pipeline.ts, `sessionCookieOf`).
 */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  // What a browser script may read beyond the CORS-safelisted headers.
  "access-control-expose-headers":
    "Allow, ETag, RateLimit, RateLimit-Policy, Retry-After, WWW-Authenticate, X-Request-Id",
} as const;

/** A preflight's answer. */
export const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, HEAD",
  "access-control-allow-headers": "Authorization, X-Api-Key, If-None-Match, Last-Event-ID",
  // Chromium's ceiling (Firefox allows a day).
  "access-control-max-age": "7200",
} as const;

// Browser features no page of ours uses. The clipboard stays allowed: the console copies new keys
// and the reference copies examples. Only features Chromium knows: it reports unknown ones.
const PERMISSIONS_POLICY = [
  "accelerometer",
  "browsing-topics",
  "camera",
  "display-capture",
  "geolocation",
  "gyroscope",
  "hid",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "serial",
  "usb",
]
  .map((feature) => `${feature}=()`)
  .join(", ");

/** Every page, stylesheet and script Next sends, beside the Content-Security-Policy of proxy.ts. */
export const PAGE_SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: PERMISSIONS_POLICY },
  // frame-ancestors 'none' says the same to browsers that read CSP; this, to those that do not.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

/**
 * The pages' policy. Scripts: only those carrying this response's nonce (Next puts it on its own
 * scripts and inline data), and what they load ('strict-dynamic': the lazy chunks, Scalar's
 * included); no 'unsafe-inline', no 'unsafe-eval'. 'self' counts only in browsers that do not know
 * 'strict-dynamic'. Development adds 'unsafe-eval': React rebuilds server error stacks with eval
 * there.
 *
 * Styles need 'unsafe-inline': React writes `style` attributes into the server's HTML (bars,
 * grids, the usage chart), and Scalar, a Vue app, adds <style> elements (its theme and our
 * customCss) without a nonce. A nonce in style-src would switch 'unsafe-inline' off, so there is
 * none. Injected CSS cannot run code; scripts are where the policy is strict.
 *
 * No upgrade-insecure-requests: every address a page uses is relative, so the page's own scheme
 * is the one used; forcing https would break an instance served over plain http inside a network.
 */
export function pageContentSecurityPolicy(nonce: string, development = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
