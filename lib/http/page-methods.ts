import type { ServerResponse } from "node:http";
import { newRequestId, problemBody } from "./problem.ts";
import { JSON_SECURITY_HEADERS } from "./security-headers.ts";

// The methods each path outside /api/v1 is served with, and the answer to any other: 405 with
// `Allow`, as the API answers, rather than Next's page or a 500.

const PAGE_METHODS = ["GET", "HEAD", "POST"];
const READ_METHODS = ["GET", "HEAD"];
const READ_ONLY_PATHS = new Set(["/healthz", "/readyz", "/status.json", "/metrics"]);

/** The methods `path` is served with (the API's paths are the API's own business). */
export function allowedMethods(path: string, feedPath: string): readonly string[] {
  if (path === feedPath) return ["POST"];
  if (READ_ONLY_PATHS.has(path)) return READ_METHODS;
  return PAGE_METHODS;
}

/**
 * Answers a method the path is not served with: OPTIONS with 204 and `Allow`, anything else with
 * 405 and `Allow` and a problem. False when the method is served, for the caller to serve it.
 */
export function answerUnservedMethod(res: ServerResponse, path: string, method: string, feedPath: string): boolean {
  const allowed = allowedMethods(path, feedPath);
  if (allowed.includes(method)) return false;
  const allow = [...allowed, "OPTIONS"].join(", ");
  if (method === "OPTIONS") {
    res.writeHead(204, { ...JSON_SECURITY_HEADERS, allow, "cache-control": "no-store" });
    res.end();
    return true;
  }
  const requestId = newRequestId();
  const problem = problemBody(
    405,
    "method_not_allowed",
    "Method not allowed",
    `${path} is not served with ${method}; it answers ${allowed.join(", ")}.`,
    requestId,
  );
  const bytes = Buffer.from(JSON.stringify(problem));
  res.writeHead(405, {
    ...JSON_SECURITY_HEADERS,
    allow,
    "content-type": "application/problem+json",
    "content-length": bytes.length,
    "cache-control": "no-store",
    "x-request-id": requestId,
  });
  res.end(bytes);
  return true;
}
