import { ApiError } from "../request/errors.ts";
import type { QueryParams } from "../request/types.ts";

// Query parameters that look like an attempt to pass a key: refused outright, because a key in a
// URL ends up in logs, browser history and referrers.
const KEY_PARAMETERS = new Set(["api_key", "apikey", "api-key", "key", "access_token", "token", "x-api-key"]);
const LOOKS_LIKE_A_KEY = /svc_s[bk]_/;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The key a request carries, by the contract's rules: `Authorization: Bearer <key>` or
 * `X-Api-Key: <key>`; both with the same key is fine, different keys are a conflict; a key in
 * the query string is never accepted.
 */
export function readCredentials(header: (name: string) => string | undefined, query: QueryParams): string {
  refuseKeyInQuery(query);
  const authorization = header("authorization");
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization.trim());
    if (!match) {
      throw new ApiError("invalid_api_key", "The Authorization header must be `Bearer <API key>`.", {
        headers: { "www-authenticate": 'Bearer error="invalid_request"' },
      });
    }
    bearer = match[1];
  }
  const apiKey = header("x-api-key")?.trim() || undefined;
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) {
    throw new ApiError(
      "conflicting_credentials",
      "Authorization and X-Api-Key carry different keys; send one key, in one of them. Neither was used and the request was not counted.",
    );
  }
  const key = bearer ?? apiKey;
  if (key === undefined) {
    throw new ApiError(
      "missing_api_key",
      "This endpoint needs an API key: send `Authorization: Bearer <key>` or `X-Api-Key: <key>`. Keys are created in the console.",
      { headers: { "www-authenticate": "Bearer" } },
    );
  }
  return key;
}

/** Throws 401 `invalid_api_key` when the query string carries what looks like a key (the MCP endpoint's URL too). */
export function refuseKeyInQuery(query: QueryParams): void {
  for (const [name, value] of query) {
    if (KEY_PARAMETERS.has(name.toLowerCase()) || LOOKS_LIKE_A_KEY.test(value)) {
      throw new ApiError(
        "invalid_api_key",
        `API keys are not accepted in the query string (parameter "${name}"): send the key in the ` +
          "Authorization: Bearer header or the X-Api-Key header. A key that was in a URL may be in logs; consider revoking it.",
        { headers: { "www-authenticate": 'Bearer error="invalid_request"' } },
      );
    }
  }
}
