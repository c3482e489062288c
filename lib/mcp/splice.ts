import { randomBytes } from "node:crypto";

// Bytes we already hold, put into the JSON-RPC answer the SDK writes without its serialising them
// again. A tool's result carries the API's answer twice (as structured content, and as JSON text
// for clients that read text only), and for the odds board that is hundreds of KB written per call
// by JSON.stringify, most of a call's CPU; yet the answer's bytes are the REST body we were given
// (the board's part shared by every answer until the view changes). So the result hands the SDK
// small stand-ins, and once it has written the answer, each stand-in's text is replaced by the
// bytes it stands for. A stand-in's text is a name no data can hold (a random part per process),
// made of characters JSON writes as they are, so it appears in the answer exactly as registered,
// in a JSON body and in an event stream's `data:` line alike.

const PREFIX = `mcp-splice-${randomBytes(12).toString("hex")}-`;
let made = 0;

/** The stand-ins of one exchange, and the bytes each stands for. */
export class Splices {
  private readonly parts = new Map<string, Buffer[]>();

  /** An object standing for the JSON value `json` (a JSON object's bytes, in order). */
  object(json: Buffer[]): Record<string, number> {
    const name = `${PREFIX}${made++}`;
    this.parts.set(`{"${name}":0}`, json);
    return { [name]: 0 };
  }

  /** A string standing for the string whose JSON form, without its quotes, is `escaped`. */
  string(escaped: Buffer[]): string {
    const name = `${PREFIX}${made++}`;
    this.parts.set(name, escaped);
    return name;
  }

  get empty(): boolean {
    return this.parts.size === 0;
  }

  /** The answer with every stand-in replaced: chunks to write in order. */
  apply(answer: Buffer): Buffer[] {
    const found = [...this.parts].map(([text, bytes]) => {
      const at = answer.indexOf(text);
      // The SDK wrote the result otherwise than it was given: better no answer than a wrong one.
      if (at === -1) throw new Error("A stand-in of the tool's result is not in the answer the SDK wrote");
      return { at, end: at + Buffer.byteLength(text), bytes };
    });
    found.sort((a, b) => a.at - b.at);
    const chunks: Buffer[] = [];
    let from = 0;
    for (const { at, end, bytes } of found) {
      chunks.push(answer.subarray(from, at), ...bytes);
      from = end;
    }
    chunks.push(answer.subarray(from));
    return chunks;
  }
}

/** The JSON form of a string without its quotes: what stands between them in an answer. */
export function escapedString(text: string): Buffer {
  const json = JSON.stringify(text);
  return Buffer.from(json.slice(1, -1));
}
