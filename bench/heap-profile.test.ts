import { describe, expect, it } from "vitest";
import { summariseHeap, type HeapNode } from "./heap-profile.ts";

const ROOT = "/srv/app";
const node = (functionName: string, url: string, selfSize: number, children: HeapNode[] = []): HeapNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

describe("a sampling heap profile's summary", () => {
  it("gives each function's and each file's own bytes per request, largest first", () => {
    const head = node("(root)", "", 0, [
      node("serve", `file://${ROOT}/lib/api/pipeline.ts`, 6_000, [
        node("processHeader", "node:_http_outgoing", 3_000),
        node("answer", `file://${ROOT}/lib/api/pipeline.ts`, 1_000),
      ]),
    ]);
    const text = summariseHeap({ head }, { requests: 10, root: ROOT });
    const lines = text.split("\n");
    expect(lines[0]).toBe("  allocated: 1,000 B a request");
    // By function: serve 600 B (60 %), processHeader 300 B, answer 100 B.
    expect(lines[2]).toMatch(/^\s+600 B\s+60\.0 %\s+serve lib\/api\/pipeline\.ts:10$/);
    expect(lines[3]).toMatch(/^\s+300 B\s+30\.0 %\s+processHeader node:_http_outgoing:10$/);
    // By file: the project's own file with both its functions, Node's in parentheses.
    expect(text).toMatch(/700 B\s+70\.0 %\s+lib\/api\/pipeline\.ts\n/);
    expect(text).toMatch(/300 B\s+30\.0 %\s+\(node:_http_outgoing\)/);
  });
});
