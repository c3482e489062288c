// A parser of the Server-Sent Events wire format (HTML Living Standard, "Parsing an event stream"),
// fed with text as it arrives. A message's `id` is the one its own lines set; the caller keeps the
// last one. `retry:` is reported when it is read, as EventSource applies it.

export type SseMessage = { event: string; data: string; id?: string };
export type SseItem = { type: "message"; message: SseMessage } | { type: "retry"; ms: number };

export type SseParser = {
  /** Parses `text` (the next piece of the stream, cut anywhere) and returns what it completed. */
  feed(text: string): SseItem[];
};

export function createSseParser(): SseParser {
  let pending = ""; // a line not yet ended
  let scanned = 0; // how much of it holds no line end: a long message cut in many pieces is read once
  let started = false;
  let event = "";
  let data: string[] = [];
  let id: string | undefined;

  const line = (text: string, items: SseItem[]) => {
    if (text === "") {
      if (data.length > 0) {
        const message: SseMessage = { event: event || "message", data: data.join("\n") };
        if (id !== undefined) message.id = id;
        items.push({ type: "message", message });
      }
      event = "";
      data = [];
      id = undefined;
      return;
    }
    if (text.startsWith(":")) return; // a comment: `: ping`
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) items.push({ type: "retry", ms: Number(value) });
  };

  return {
    feed(text) {
      const items: SseItem[] = [];
      pending += text;
      if (!started && pending.length > 0) {
        started = true;
        if (pending.startsWith("\uFEFF")) pending = pending.slice(1);
      }
      let start = 0;
      let i = scanned;
      for (; i < pending.length; i++) {
        const char = pending[i];
        if (char !== "\n" && char !== "\r") continue;
        // A `\r` at the end of what came may be the first half of `\r\n`: wait for the next piece.
        if (char === "\r" && i === pending.length - 1) break;
        line(pending.slice(start, i), items);
        if (char === "\r" && pending[i + 1] === "\n") i++;
        start = i + 1;
      }
      pending = pending.slice(start);
      scanned = i - start;
      return items;
    },
  };
}
