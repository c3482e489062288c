import { randomFillSync } from "node:crypto";

/** RFC 9457 problem details, as every error of the service is answered. */
export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  [extension: string]: unknown;
};

/**
 * The problem type of an error code: its section of the service's own page of error codes. A
 * reference with the full path, which RFC 9457 allows and resolves against the request's URL, so
 * it names the same type on every deployment and leads to the server that answered.
 */
export function problemType(code: string): string {
  return `${ERROR_CODES_PAGE}#${code}`;
}

/** The page that explains every error code, a section (and an anchor) per code. */
export const ERROR_CODES_PAGE = "/docs/errors";

// Every API answer carries a request id, so it is made on the hot path: taken from a pool of random
// bytes refilled 4 KiB at a time, as a UUID per request cost a visible share of a request's CPU.
const ID_BYTES = 16;
const POOLED_IDS = 256;
const idPool = Buffer.allocUnsafe(ID_BYTES * POOLED_IDS);
let nextPooledId = POOLED_IDS;

export function newRequestId(): string {
  if (nextPooledId === POOLED_IDS) {
    randomFillSync(idPool);
    nextPooledId = 0;
  }
  const at = ID_BYTES * nextPooledId++;
  return `req_${idPool.toString("hex", at, at + ID_BYTES)}`;
}

export function problemBody(
  status: number,
  code: string,
  title: string,
  detail: string,
  requestId: string,
  extensions: Record<string, unknown> = {},
): Problem {
  return { type: problemType(code), title, status, detail, code, request_id: requestId, ...extensions };
}

export function problemResponse(
  status: number,
  code: string,
  title: string,
  detail: string,
  options: { requestId?: string; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
): Response {
  const requestId = options.requestId ?? newRequestId();
  const body = problemBody(status, code, title, detail, requestId, options.extensions);
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/problem+json",
      "cache-control": "no-store",
      "x-request-id": requestId,
      ...options.headers,
    },
  });
}
