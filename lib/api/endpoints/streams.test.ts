import { describe, expect, it } from "vitest";
import { STREAM_ENDING_CODES, StreamEnding } from "../../streams/errors.ts";
import { API_ERRORS } from "../request/errors.ts";
import { streamProblem } from "./streams.ts";

describe("streamProblem", () => {
  it("gives every ending of a stream the problem the API answers with its code", () => {
    for (const code of STREAM_ENDING_CODES) {
      const problem = streamProblem(new StreamEnding(code, "Why it ended."), "req_1");
      expect(problem).toEqual({
        type: `/docs/errors#${code}`,
        title: API_ERRORS[code].title,
        status: API_ERRORS[code].status,
        detail: "Why it ended.",
        code,
        request_id: "req_1",
      });
    }
  });

  it("keeps the fields in the problem's order on the wire", () => {
    const problem = streamProblem(new StreamEnding("key_revoked", "Revoked."), "req_2");
    expect(JSON.stringify(problem)).toBe(
      '{"type":"/docs/errors#key_revoked","title":"API key revoked","status":401,"detail":"Revoked.","code":"key_revoked","request_id":"req_2"}',
    );
  });
});
