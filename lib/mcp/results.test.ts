import { describe, expect, it } from "vitest";
import { Payload } from "../api/request/payload.ts";
import type { ApiResponse } from "./api-seam.ts";
import { answerOf, toolResult } from "./results.ts";
import { Splices } from "./splice.ts";
import { TOOLS_BY_NAME } from "./tools.ts";

// A success's data is read once per payload (the bytes every answer shares until the view
// changes), each answer's own meta on top; any other body is read whole. With stand-ins, the
// result is written small, and spliced it is the answer its values would have made.

const EVENT = {
  id: "a:b",
  sport: "soccer",
  competition: "League",
  home: "Home",
  away: 'Away "quoted"',
  status: "live",
  kickoff: "2026-11-21T14:30:00.000Z",
  score: { home: 1, away: 0 },
  clock: "67:12",
  period: "2nd half",
};

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

describe("a tool's result with stand-ins", () => {
  const tool = TOOLS_BY_NAME.get("get_odds")!;
  const meta = { sandbox: false, delay_seconds: 0, requests_used: 3, requests_quota: 100, revision: 9 };
  const board = [{ ...EVENT, markets: [] }];

  it.each([
    ["a cached view (data, then meta)", () => new Payload(board).body(meta, false)],
    ["any other body", () => [Buffer.from(JSON.stringify({ data: board, meta }))]],
  ])("writes, once spliced, the answer the values would have: %s", (_, body) => {
    const splices = new Splices();
    const written = JSON.stringify(toolResult(tool, response(body()), splices));
    expect(written.length).toBeLessThan(500);
    const answer = JSON.parse(Buffer.concat(splices.apply(Buffer.from(written))).toString()) as unknown;
    expect(answer).toEqual(JSON.parse(JSON.stringify(toolResult(tool, response(body())))));
    expect(answer).toMatchObject({ structuredContent: { data: board, meta } });
  });
});
