import * as crypto from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { ServiceMetrics } from "./index.ts";

// The comparison itself is node's; what is checked is that it runs, on inputs of one length,
// whatever the length of the token sent (a comparison skipped for a wrong length tells the length).
vi.mock("node:crypto", async (original) => {
  const actual = await original<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

describe("the metrics token", () => {
  it("is compared in constant time whatever the length of the token sent", async () => {
    const metrics = new ServiceMetrics();
    const token = "metrics-token-0123456789";
    const compare = vi.mocked(crypto.timingSafeEqual);
    for (const sent of ["short", `${token}-and-more`, token.replace("0", "1"), ""]) {
      compare.mockClear();
      const answer = await metrics.scrape(token, `Bearer ${sent}`);
      expect(answer.status).toBe(401);
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0]! as [Buffer, Buffer];
      expect(a.length).toBe(b.length);
    }
    expect((await metrics.scrape(token, `Bearer ${token}`)).status).toBe(200);
  });
});
