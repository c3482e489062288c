import { describe, expect, it } from "vitest";
import { entries, summarise, type CpuProfile } from "./cpu-profile.ts";

const ROOT = "/srv/app";
const frame = (functionName: string, url: string, lineNumber = 0, columnNumber = 0) => ({
  functionName,
  url,
  lineNumber,
  columnNumber,
});

// (root) → handle (ours) → serve (ours) → writev (native), and serve → serve (recursion) → writev;
// (root) → (idle) and (root) → writev of a Node module.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)", ""), children: [2, 6, 7] },
    { id: 2, callFrame: frame("handle", `file://${ROOT}/lib/api/index.ts`, 10), children: [3] },
    { id: 3, callFrame: frame("serve", `file://${ROOT}/lib/api/pipeline.ts`, 20), children: [4, 5] },
    { id: 4, callFrame: frame("writev", ""), children: [] },
    { id: 5, callFrame: frame("serve", `file://${ROOT}/lib/api/pipeline.ts`, 20), children: [8] },
    { id: 6, callFrame: frame("(idle)", ""), children: [] },
    { id: 7, callFrame: frame("_storeHeader", "node:_http_outgoing", 437), children: [] },
    { id: 8, callFrame: frame("writev", ""), children: [] },
  ],
  startTime: 0,
  endTime: 1_000,
  // serve itself 2, writev under serve 3 + 1 under the recursion, idle 4, a Node function 2.
  samples: [3, 3, 4, 4, 4, 8, 6, 6, 6, 6, 7, 7],
};

describe("a CPU profile's summary", () => {
  it("counts each function's own samples, and its total once however deep it recurses", () => {
    const { entries: all, samples } = entries(profile, ROOT);
    const of = (name: string) => all.find((e) => e.name === name)!;
    expect(samples).toBe(12);
    expect(of("serve")).toMatchObject({ where: "lib/api/pipeline.ts:21:1", own: true, self: 2, total: 6 });
    expect(of("handle")).toMatchObject({ self: 0, total: 6 });
    expect(of("writev")).toMatchObject({ where: "V8 / native", own: false, self: 4, total: 4 });
    expect(of("_storeHeader")).toMatchObject({ where: "node:_http_outgoing:438:1", own: false, self: 2 });
  });

  it("gives shares of the busy samples and µs per request from the CPU used", () => {
    // 8 busy samples; 0.008 s of CPU over 100 requests is 80 µs a request, 10 µs per busy sample.
    const text = summarise(profile, { requests: 100, cpuSeconds: 0.008, root: ROOT });
    expect(text).toContain("8 busy samples (4 idle)");
    expect(text).toMatch(/50\.0 %\s+40\.0 µs {2}writev {2}V8 \/ native/);
    expect(text).toMatch(/75\.0 %\s+60\.0 µs {2}serve {2}lib\/api\/pipeline\.ts:21:1/);
    expect(text).not.toMatch(/\(idle\)/);
  });

  it("tells apart the functions of a minified script's one line, and names a page's script by its path", () => {
    const chunk = "http://127.0.0.1:3000/_next/static/chunks/board.js";
    const minified: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(root)", ""), children: [2, 3] },
        { id: 2, callFrame: frame("a", chunk, 0, 120), children: [] },
        { id: 3, callFrame: frame("a", chunk, 0, 4_512), children: [] },
      ],
      startTime: 0,
      endTime: 1_000,
      samples: [2, 3, 3],
    };
    const { entries: all } = entries(minified, ROOT);
    expect(all.filter((e) => e.name === "a").map((e) => [e.where, e.self])).toEqual([
      ["/_next/static/chunks/board.js:1:121", 1],
      ["/_next/static/chunks/board.js:1:4513", 2],
    ]);
    expect(summarise(minified, { requests: 1, cpuSeconds: null, root: ROOT })).toMatch(
      /100\.0 % {2}\/_next\/static\/chunks\/board\.js\n/,
    );
  });
});
