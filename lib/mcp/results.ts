import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { Problem, type ApiResponse } from "./api-seam.ts";
import { escapedString, type Splices } from "./splice.ts";
import type { Answer } from "./summaries.ts";
import type { Tool } from "./tools.ts";

// A tool's result from the API's answer to its request: a success is the answer's `{data, meta}`
// as structured content, with a summary to quote and the same JSON as text for clients that read
// text only (the protocol asks for it, and many assistants give their model the text alone); a
// refusal is a tool error whose text is the problem's title and detail, and whose structured
// content is the problem itself (its `code`, `request_id`, …) with `retry_after`. Where the answer
// is shown whole, both copies are the bytes of the API's body, put into the SDK's answer as they
// are (splice.ts) rather than serialised again per call.

/** A refusal as a tool's structured content: the API's problem, and how long to wait when it says. */
export const ToolProblem = Problem.extend({
  retry_after: z
    .int()
    .optional()
    .describe("Seconds to wait before calling again (`rate_limited`, `quota_exceeded`, `unavailable`)"),
}).describe("The API's problem details (RFC 9457) of a refused call, with `retry_after` when the API sent one");
export type ToolProblem = z.infer<typeof ToolProblem>;

function bodyText(response: ApiResponse): string {
  if (!response.body) return "";
  return response.body.length === 1 ? response.body[0]!.toString() : Buffer.concat(response.body).toString();
}

// A success's body is its data's bytes, `{"data":…`, the same buffer for every answer until the
// feed's view changes, then its own `,"meta":{…}}` (lib/api/request/payload.ts): the data is read once per
// buffer, not once per call (for the odds board, a few ms of each call's CPU). Any other body is
// read whole.
// Its JSON-string form (what stands between the quotes of a text holding it) is made once too.
const readData = new WeakMap<Buffer, { data: unknown; text: string; escaped?: Buffer }>();

/** The answer of a 200, its JSON text, and that text's JSON-string form, in chunks. */
export function answerOf(response: ApiResponse): { answer: Answer; text: string; escaped(): Buffer[] } {
  const [head, tail, ...more] = response.body ?? [];
  const layout = head && tail && more.length === 0 && tail[0] === 0x2c && head.subarray(0, 8).toString() === '{"data":';
  if (!layout) {
    const text = bodyText(response);
    return { answer: JSON.parse(text) as Answer, text, escaped: () => [escapedString(text)] };
  }
  let read = readData.get(head);
  if (!read) {
    const text = head.toString();
    read = { data: (JSON.parse(`${text}}`) as { data: unknown }).data, text };
    readData.set(head, read);
  }
  const shared = read;
  const tailText = tail.toString();
  const { meta } = JSON.parse(`{${tailText.slice(1)}`) as Pick<Answer, "meta">;
  return {
    answer: { data: shared.data, meta },
    text: `${shared.text}${tailText}`,
    // The two parts are escaped apart: they meet between ASCII characters, so nothing is split.
    escaped: () => [(shared.escaped ??= escapedString(shared.text)), escapedString(tailText)],
  };
}

/**
 * The result of a tool's call. With `splices`, an answer shown whole is carried by stand-ins for
 * the body's bytes, which the exchange replaces in the SDK's answer; without, by the values.
 */
export function toolResult(tool: Tool, response: ApiResponse, splices?: Splices): CallToolResult {
  if (response.status !== 200) return refusal(response, bodyText(response));
  const { answer, text, escaped } = answerOf(response);
  const shown = tool.shown ? tool.shown(answer) : answer;
  const summary = { type: "text" as const, text: tool.summary(shown) };
  if (shown !== answer) {
    return { content: [summary, { type: "text", text: JSON.stringify(shown) }], structuredContent: shown };
  }
  if (!splices) return { content: [summary, { type: "text", text }], structuredContent: answer };
  return {
    content: [summary, { type: "text", text: splices.string(escaped()) }],
    structuredContent: splices.object(response.body!),
  };
}

function refusal(response: ApiResponse, text: string): CallToolResult {
  const problem = JSON.parse(text) as ToolProblem;
  const retryAfter = Number(response.headers["retry-after"]);
  const structured: ToolProblem = Number.isInteger(retryAfter) ? { ...problem, retry_after: retryAfter } : problem;
  return {
    isError: true,
    content: [
      { type: "text", text: `${problem.title}: ${problem.detail}` },
      { type: "text", text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}
