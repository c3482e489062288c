import { describe, expect, it } from "vitest";
import { chunkFramed } from "./sink.ts";

// One framed copy of each chunk, for every client it is written to, whatever was framed between.

describe("a chunk framed for HTTP/1.1 chunked encoding", () => {
  it("is its length in hex, its bytes and CRLF", () => {
    expect(chunkFramed(Buffer.from("retry: 2000\n\n")).toString("latin1")).toBe("d\r\nretry: 2000\n\n\r\n");
  });

  it("is the same buffer each time the same bytes are written, though other chunks were framed between", () => {
    const retry = Buffer.from("retry: 2000\n\n");
    const snapshot = Buffer.from('id: 7\nevent: snapshot\ndata: {"events":[]}\n\n');
    const first = chunkFramed(snapshot);
    chunkFramed(retry);
    expect(chunkFramed(snapshot)).toBe(first);
    expect(chunkFramed(Buffer.from(snapshot))).not.toBe(first);
  });
});
