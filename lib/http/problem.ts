import { randomUUID } from "node:crypto";

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

/** The problem type URI of an error code: its page in the API reference. */
export function problemType(code: string): string {
  return `https://docs.sports-data.example/problems/${code}`;
}

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll("-", "")}`;
}

/** The body of a problem: the one shape every error of the service has. */
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
