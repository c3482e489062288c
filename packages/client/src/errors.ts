import type { Problem, ProblemCode } from "./types.ts";

// What a call can throw besides the platform's AbortError: the service's answer as a problem, a
// failure to reach it at all, and a method a stream token cannot call.

/** A code the service did not send: the answer was not a problem (a proxy's error page, say). */
export const UNEXPECTED_RESPONSE = "unexpected_response";

/** An error answer of the service (RFC 9457 problem details), with its stable `code` to switch on. */
export class ProblemError extends Error {
  override name = "ProblemError";
  readonly status: number;
  readonly code: ProblemCode | typeof UNEXPECTED_RESPONSE;
  readonly title: string;
  readonly detail: string;
  /** Equal to the `X-Request-Id` header: quote it when reporting a problem. */
  readonly requestId: string | null;
  readonly type: string | null;
  /** One entry per invalid or unknown parameter (400). */
  readonly errors?: { param: string; message: string }[];
  /** On 429: the policy that was exceeded (`second`, `month`, `streams`, `unknown_keys`). */
  readonly violatedPolicies?: string[];
  /** Seconds the service asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter?: number;

  constructor(status: number, problem: Partial<Problem>, requestId: string | null, retryAfter?: number) {
    super(`${status} ${problem.code ?? UNEXPECTED_RESPONSE}: ${problem.detail ?? problem.title ?? "no detail"}`);
    this.status = status;
    this.code = problem.code ?? UNEXPECTED_RESPONSE;
    this.title = problem.title ?? "";
    this.detail = problem.detail ?? "";
    this.requestId = problem.request_id ?? requestId;
    this.type = problem.type ?? null;
    if (problem.errors) this.errors = problem.errors;
    if (problem["violated-policies"]) this.violatedPolicies = problem["violated-policies"];
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/** The service could not be reached, or the connection broke before a whole answer came. */
export class NetworkError extends Error {
  override name = "NetworkError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A REST method called by a client made with a stream token: tokens open streams only. */
export class KeyRequiredError extends Error {
  override name = "KeyRequiredError";

  constructor(method: string) {
    super(`${method} needs an API key: a stream token opens the two streams only (follow, followBoard).`);
  }
}

/** `Retry-After` in seconds (the service sends whole seconds), or undefined when absent or unreadable. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** The problem an error answer carries; any other body becomes an `unexpected_response` problem. */
export async function problemOf(response: Response): Promise<ProblemError> {
  const requestId = response.headers.get("x-request-id");
  const retryAfter = retryAfterSeconds(response.headers);
  let text = "";
  try {
    text = await response.text();
    const body = JSON.parse(text) as Partial<Problem>;
    if (body && typeof body === "object" && typeof body.code === "string") {
      return new ProblemError(response.status, body, requestId, retryAfter);
    }
  } catch {
    // not JSON, or the body broke off: described below by what came
  }
  const detail = text.slice(0, 200) || response.statusText;
  return new ProblemError(response.status, { title: response.statusText, detail }, requestId, retryAfter);
}
