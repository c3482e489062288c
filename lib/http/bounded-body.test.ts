import { describe, expect, it } from "vitest";
import { boundedBody } from "./bounded-body.ts";

function chunked(parts: number, size: number): Request {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < parts; i++) controller.enqueue(new Uint8Array(size).fill(97));
      controller.close();
    },
  });
  return new Request("http://service.test/", { method: "POST", body: stream, duplex: "half" } as RequestInit);
}

describe("a request body read within a limit", () => {
  it("is the whole body when it fits", async () => {
    const body = await boundedBody(new Request("http://service.test/", { method: "POST", body: "a=1" }), 10);
    expect(new TextDecoder().decode(body!)).toBe("a=1");
    expect(await boundedBody(chunked(4, 16), 64)).toHaveLength(64);
  });

  it("is refused by its Content-Length, before a byte is read", async () => {
    const request = new Request("http://service.test/", {
      method: "POST",
      body: "short",
      headers: { "content-length": "100000" },
    });
    expect(await boundedBody(request, 65_536)).toBeNull();
    expect(request.bodyUsed).toBe(false);
  });

  it("is refused once more bytes arrive than allowed, whatever was declared", async () => {
    expect(await boundedBody(chunked(5, 16_384), 65_536)).toBeNull();
  });
});
