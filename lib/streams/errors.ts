import type { Problem } from "../http/problem.ts";

// Why the service ends a stream that is open. The codes are the contract's problem codes; the API
// (lib/api/endpoints/streams.ts) owns the problem table and turns an ending into the body the
// stream's last `error` message carries, as it would answer a request.

export const STREAM_ENDING_CODES = [
  "invalid_api_key",
  "key_revoked",
  "key_expired",
  "session_expired",
  "sport_not_covered",
  "licence_inactive",
  "ip_not_allowed",
  "not_found",
  "unavailable",
] as const;
export type StreamEndingCode = (typeof STREAM_ENDING_CODES)[number];

export class StreamEnding extends Error {
  override name = "StreamEnding";
  readonly code: StreamEndingCode;

  constructor(code: StreamEndingCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The problem body of an ending, for the stream of this request. */
export type StreamProblem = (ending: StreamEnding, requestId: string) => Problem;
