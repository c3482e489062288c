import { describe, expect, it } from "vitest";
import { Payload } from "../api/payload.ts";
import type { ApiResponse } from "./api-seam.ts";
import { answerOf } from "./results.ts";

// A success's data is read once per payload (the bytes every answer shares until the view
// changes), each answer's own meta on top; any other body is read whole.

const response = (body: Buffer[]): ApiResponse => ({ status: 200, headers: {}, body });

describe("reading an answer", () => {
  it("reads a payload's data once, and each answer's meta, into the same answer as the whole body", () => {
    const payload = new Payload([{ id: "e1", name: 'Quote " and \\u00e9' }]);
    const first = response(payload.body({ requests_used: 1 }, false));
    const second = response(payload.body({ requests_used: 2 }, false));
    const one = answerOf(first);
    const two = answerOf(second);
    const whole = (r: ApiResponse) => JSON.parse(Buffer.concat(r.body!).toString()) as unknown;
    expect(one.answer).toEqual(whole(first));
    expect(two.answer).toEqual(whole(second));
    expect(two.text).toBe(Buffer.concat(second.body!).toString());
    expect(two.answer.data).toBe(one.answer.data);
  });

  it("reads any other body whole", () => {
    const body = { data: { a: 1 }, meta: { requests_used: 3 } };
    const chunks = [Buffer.from('{"data":{"a":'), Buffer.from('1},"meta":{"requests_used":3}}')];
    expect(answerOf(response(chunks)).answer).toEqual(body);
    expect(answerOf(response([Buffer.from(JSON.stringify(body))])).answer).toEqual(body);
  });
});
