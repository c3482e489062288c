import { describe, expect, it } from "vitest";
import { MASK, PATH_MAX, redactedTarget } from "./redact.ts";

const target = (url: string) => {
  const at = url.indexOf("?");
  return redactedTarget(at === -1 ? url : url.slice(0, at), new URLSearchParams(at === -1 ? "" : url.slice(at + 1)));
};

describe("the request log's path and query", () => {
  it("keeps a path and its ordinary parameters", () => {
    expect(target("/api/v1/events?sport=soccer&limit=5")).toBe("/api/v1/events?sport=soccer&limit=5");
    expect(target("/api/v1/events/e-1")).toBe("/api/v1/events/e-1");
  });

  it("masks credential parameters by name, whatever their value", () => {
    const kept = target(
      "/api/v1/odds/stream?token=abc.def&api_key=k1&key=k2&X-Api-Key=k3&access_token=t&my_secret=s&sport=tennis",
    );
    expect(kept).toBe(
      `/api/v1/odds/stream?token=${MASK}&api_key=${MASK}&key=${MASK}&X-Api-Key=${MASK}&access_token=${MASK}&my_secret=${MASK}&sport=tennis`,
    );
    for (const secret of ["abc.def", "k1", "k2", "k3"]) expect(kept).not.toContain(secret);
  });

  it("masks our keys and tokens wherever they are, in a value or in the path", () => {
    const key = "svc_sk_0123456789abcdefghijklmnopQRSTUV";
    const token = "svc_st_eyJrIjoiYSJ9.c2lnbmF0dXJl";
    const kept = target(`/api/v1/events/${key}?cursor=${encodeURIComponent(token)}&q=${key}x`);
    expect(kept).not.toContain(key.slice(7));
    expect(kept).not.toContain(token.slice(7));
    expect(kept).toBe(`/api/v1/events/svc_sk_${MASK}?cursor=svc_st_${MASK}&q=svc_sk_${MASK}`);
  });

  it("cuts a long target", () => {
    const kept = target(`/api/v1/events?cursor=${"a".repeat(5000)}`);
    expect(kept).toHaveLength(PATH_MAX);
    expect(kept.endsWith("…")).toBe(true);
  });
});

describe("a key percent-encoded in the path", () => {
  it("is decoded before it is masked", () => {
    const key = "svc_sk_0123456789abcdefghijklmnopQRSTUV";
    const kept = target(`/api/v1/events/${key.replaceAll("_", "%5F")}?sport=soccer`);
    expect(kept).toBe(`/api/v1/events/svc_sk_${MASK}?sport=soccer`);
    expect(kept).not.toContain(key.slice(7));
  });
});
