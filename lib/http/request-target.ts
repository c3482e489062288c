import type { ServerResponse } from "node:http";
import { newRequestId, problemBody } from "./problem.ts";
import { JSON_SECURITY_HEADERS } from "./security-headers.ts";

/** The methods the server answers somewhere. */
export const SERVER_METHODS = "GET, HEAD, POST, OPTIONS";

/**
 * Answers a request whose target is `*` (RFC 9110 7.1, the asterisk form), which names no resource:
 * `OPTIONS *` asks what the server as a whole supports (204 with `Allow`); any other method with
 * it is a malformed request (400). Neither reaches the pages, which would take `*` for a path.
 */
export function answerAsteriskForm(res: ServerResponse, method: string): void {
  if (method === "OPTIONS") {
    res.writeHead(204, { ...JSON_SECURITY_HEADERS, allow: SERVER_METHODS, "cache-control": "no-store" });
    res.end();
    return;
  }
  const requestId = newRequestId();
  const problem = problemBody(
    400,
    "invalid_request_target",
    "Invalid request target",
    `The target "*" is for OPTIONS only; ${method} needs a path, such as /api/v1/events.`,
    requestId,
  );
  const bytes = Buffer.from(JSON.stringify(problem));
  res.writeHead(400, {
    ...JSON_SECURITY_HEADERS,
    "content-type": "application/problem+json",
    "content-length": bytes.length,
    "cache-control": "no-store",
    "x-request-id": requestId,
  });
  res.end(method === "HEAD" ? undefined : bytes);
}
