import { describe, expect, it } from "vitest";
import { escapedString, Splices } from "./splice.ts";

// Stand-ins in a result, written by JSON.stringify as the SDK writes an answer, become the bytes
// they stand for: the answer then reads as if the values themselves had been written.

const value = { data: [{ name: 'Quote " backslash \\ newline \n é 😀' }], meta: { revision: 7 } };
const valueText = JSON.stringify(value);
const chunks = (text: string) => [Buffer.from(text.slice(0, 9)), Buffer.from(text.slice(9))];

function spliced(write: (message: unknown) => string) {
  const splices = new Splices();
  const message = {
    jsonrpc: "2.0",
    id: 1,
    result: {
      content: [
        { type: "text", text: "A summary" },
        {
          type: "text",
          text: splices.string([escapedString(valueText.slice(0, 20)), escapedString(valueText.slice(20))]),
        },
      ],
      structuredContent: splices.object(chunks(valueText)),
    },
  };
  return Buffer.concat(splices.apply(Buffer.from(write(message)))).toString();
}

const expected = {
  jsonrpc: "2.0",
  id: 1,
  result: {
    content: [
      { type: "text", text: "A summary" },
      { type: "text", text: valueText },
    ],
    structuredContent: value,
  },
};

describe("stand-ins in an answer", () => {
  it("become the bytes they stand for in a JSON body", () => {
    expect(JSON.parse(spliced((message) => JSON.stringify(message)))).toEqual(expected);
  });

  it("and in an event stream's data line", () => {
    const stream = spliced((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`);
    expect(stream).toMatch(/^event: message\ndata: [^\n]+\n\n$/);
    expect(JSON.parse(/^data: (.*)$/m.exec(stream)![1]!)).toEqual(expected);
  });

  it("refuse an answer the SDK wrote without one of them", () => {
    const splices = new Splices();
    splices.object([Buffer.from("{}")]);
    expect(() => splices.apply(Buffer.from('{"result":{}}'))).toThrow(/not in the answer/);
  });

  it("are told apart from one another and from any data", () => {
    const splices = new Splices();
    const [a, b] = [splices.string([]), splices.string([])];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcp-splice-[0-9a-f]{24}-\d+$/);
    expect(escapedString(a)).toEqual(Buffer.from(a));
  });
});
