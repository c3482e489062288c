import { describe, expect, it } from "vitest";
import { createSseParser, type SseItem } from "./sse.ts";

const parse = (...pieces: string[]): SseItem[] => {
  const parser = createSseParser();
  return pieces.flatMap((piece) => parser.feed(piece));
};
const message = (event: string, data: string, id?: string): SseItem => ({
  type: "message",
  message: id === undefined ? { event, data } : { event, data, id },
});

describe("the SSE parser", () => {
  it("reads messages with their event, id and data, and retry as it comes", () => {
    expect(parse('retry: 2000\n\nid: 7\nevent: snapshot\ndata: {"a":1}\n\n: ping\n\nevent: end\ndata: {}\n\n')).toEqual(
      [{ type: "retry", ms: 2000 }, message("snapshot", '{"a":1}', "7"), message("end", "{}")],
    );
  });

  it("gives the same messages however the text is cut, also between \\r and \\n", () => {
    const text = 'id: 12\r\nevent: markets\r\ndata: {"x":"é"}\r\n\r\nid: 13\revent: event\rdata: 2\r\rdata: 3\n\n';
    const whole = parse(text);
    expect(whole).toEqual([
      message("markets", '{"x":"é"}', "12"),
      message("event", "2", "13"),
      message("message", "3"),
    ]);
    for (let cut = 1; cut < text.length; cut++) expect(parse(text.slice(0, cut), text.slice(cut))).toEqual(whole);
    expect(parse(...text.split(""))).toEqual(whole);
  });

  it("joins data lines, drops a leading BOM, a message without data, and a bad retry or id", () => {
    expect(parse("\uFEFFdata: one\ndata:two\ndata\n\nevent: nothing\n\nretry: soon\nid: a\0b\ndata: x\n\n")).toEqual([
      message("message", "one\ntwo\n"),
      message("message", "x"),
    ]);
  });

  it("keeps a message cut before its blank line until the line comes", () => {
    const parser = createSseParser();
    expect(parser.feed("id: 1\nevent: event\ndata: {}\n")).toEqual([]);
    expect(parser.feed("\n")).toEqual([message("event", "{}", "1")]);
  });
});
