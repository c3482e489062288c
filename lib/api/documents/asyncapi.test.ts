import { Parser } from "@asyncapi/parser";
import { Ajv } from "ajv";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  eventState,
  FakeFeed,
  FakeKeys,
  FakeSessions,
  FakeSink,
  keyRecord,
  streamRequest,
} from "../../../testing/stream-fakes.ts";
import type { Message } from "../../../testing/stream-fakes.ts";
import { StreamHub } from "../../streams/hub.ts";
import { asyncApiDocument } from "./asyncapi.ts";
import { STREAM_ENDPOINTS, streamProblem } from "../endpoints/streams.ts";

// The AsyncAPI document as the AsyncAPI parser reads it (its own validation and rules), with every
// message of every stream endpoint, and payloads that accept what the streams really send.

const document = asyncApiDocument() as {
  channels: Record<string, { address: string; messages: Record<string, { headers?: unknown }> }>;
};
const SEVERITY = ["error", "warning", "information", "hint"];

describe("the AsyncAPI document", () => {
  let parsed: Awaited<ReturnType<Parser["parse"]>>;
  // The parser compiles its rulesets on its first parse: seconds, and more than the default 10 s on
  // a machine busy with other work (seen at a load average of 9).
  beforeAll(async () => {
    parsed = await new Parser().parse(JSON.stringify(asyncApiDocument()));
  }, 60_000);

  it("parses with no error and no warning", () => {
    const diagnostics = parsed.diagnostics.map(
      (d) => `${SEVERITY[d.severity]} ${String(d.code)}: ${d.message} (${d.path.join("/")})`,
    );
    if (diagnostics.length > 0) console.info(`The AsyncAPI parser says:\n${diagnostics.join("\n")}`);
    expect(parsed.document).toBeDefined();
    expect(diagnostics.filter((d) => d.startsWith("error") || d.startsWith("warning"))).toEqual([]);
  });

  it("has a channel per stream endpoint, at its path, with a receive operation of every message it sends", () => {
    const channels = parsed.document!.channels().all();
    expect(channels.map((c) => c.address())).toEqual(STREAM_ENDPOINTS.map((e) => e.path));
    for (const endpoint of STREAM_ENDPOINTS) {
      const channel = channels.find((c) => c.address() === endpoint.path)!;
      const names = Object.keys(endpoint.stream!.messages);
      expect(
        channel
          .messages()
          .all()
          .map((m) => m.name()),
      ).toEqual(names);
      const operations = channel.operations().all();
      expect(operations.map((o) => [o.id(), o.action()])).toEqual([[endpoint.operationId, "receive"]]);
      expect(
        operations[0]!
          .messages()
          .all()
          .map((m) => m.name()),
      ).toEqual(names);
      expect(
        channel
          .parameters()
          .all()
          .map((p) => p.id()),
      ).toEqual([...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    }
  });

  it("takes a key in either header, or a stream token in the query", () => {
    const schemes = parsed
      .document!.servers()
      .all()[0]!
      .security()
      .flatMap((requirement) => requirement.all().map((r) => r.scheme()));
    expect(schemes.map((s) => [s.type(), s.in(), s.name() ?? s.scheme()])).toEqual([
      ["http", undefined, "bearer"],
      ["httpApiKey", "header", "X-Api-Key"],
      ["httpApiKey", "query", "token"],
    ]);
  });
});

describe("the messages the streams send", () => {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  ajv.addSchema({ ...asyncApiDocument(), $id: "asyncapi.json" });
  const channelOf = (path: string) => Object.entries(document.channels).find(([, c]) => c.address === path)![0];

  /** The reasons the document refuses `message` on the stream at `path`: none when it matches. */
  function refusals(path: string, message: Message): string[] {
    const at = `asyncapi.json#/channels/${channelOf(path)}/messages/${message.event}`;
    const headers = {
      ...(message.id === undefined ? {} : { id: String(message.id) }),
      ...(message.retry ? { retry: message.retry } : {}),
    };
    const problems: string[] = [];
    if (!ajv.validate({ $ref: `${at}/payload` }, message.data)) problems.push(`data: ${ajv.errorsText()}`);
    const declared = document.channels[channelOf(path)]!.messages[message.event!]!.headers;
    // A message without headers in the document carries no SSE field but `event:` and `data:`.
    const fieldsMatch = declared ? ajv.validate({ $ref: `${at}/headers` }, headers) : Object.keys(headers).length === 0;
    if (!fieldsMatch)
      problems.push(`fields: ${declared ? ajv.errorsText() : `unexpected ${Object.keys(headers).join(", ")}`}`);
    return problems;
  }

  const hubs: StreamHub[] = [];
  afterAll(() => hubs.forEach((hub) => hub.stop()));
  afterEach(() => vi.useRealTimers());
  const market = {
    id: "e1:match_winner",
    type: "match_winner",
    name: "Result",
    line: null,
    status: "open",
    outcomes: [
      { id: "e1:match_winner:home", name: "Home", price: 1.9, status: "active" },
      { id: "e1:match_winner:away", name: "Away", price: 2.1, status: "active" },
    ],
  };

  /** An event's and the board's streams as the hub writes them: a snapshot, each kind of change, `end`, `error`. */
  async function streamed() {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-25T12:00:00.000Z"));
    const feed = new FakeFeed();
    const keys = new FakeKeys();
    keys.byHash.set("hash_1", keyRecord());
    const settings = { pingSeconds: 60, flushMs: 0, bufferBytes: 1 << 20, staleSeconds: 60, sessionStreams: 4 };
    const heartbeat = { send: () => Promise.resolve(), onHeard: () => Promise.resolve(() => {}) };
    const hub = new StreamHub({
      feed,
      keys,
      sessions: new FakeSessions(),
      heartbeat,
      now: () => new Date(),
      settings,
      problem: streamProblem,
    });
    hubs.push(hub);
    await hub.start();
    feed.publish("e1", "event", eventState("e1"));
    const at = new Date().toISOString();
    feed.publish("e1", "markets", [{ ...market, updated_at: at }]);
    const event = new FakeSink();
    const board = new FakeSink();
    hub.openEventStream(streamRequest(event), { id: "e1", sport: "soccer" });
    hub.openBoardStream(streamRequest(board), { sports: ["soccer"], type: null });
    feed.publish("e1", "event", { ...eventState("e1"), score: { home: 1, away: 0 } });
    feed.publish("e1", "markets", [{ ...market, line: null, updated_at: at, status: "suspended" }]);
    feed.publish("e1", "lineups", { event_id: "e1", home: [{ number: 9, name: "Striker", position: "FW" }], away: [] });
    hub.flush();
    feed.publish("e1", "event", eventState("e1", "finished"));
    hub.flush();
    keys.byHash.set("hash_1", keyRecord({ revokedAt: new Date() }));
    keys.change({ keyId: "key_1" });
    await vi.waitFor(() => expect(board.events.at(-1)).toBe("error"));
    return { event: event.messages.filter((m) => m.event), board: board.messages.filter((m) => m.event) };
  }

  it("match the document's payloads and fields, on both streams", async () => {
    const { event, board } = await streamed();
    expect(event.map((m) => m.event)).toEqual(["snapshot", "event", "markets", "lineups", "event", "end"]);
    expect(board.map((m) => m.event)).toEqual(["snapshot", "event", "markets", "event", "error"]);
    const [eventPath, boardPath] = STREAM_ENDPOINTS.map((e) => e.path) as [string, string];
    for (const message of event) expect(refusals(eventPath, message), message.event).toEqual([]);
    for (const message of board) expect(refusals(boardPath, message), message.event).toEqual([]);
  });

  it("refuse a message that drifted from the schema", async () => {
    const { event } = await streamed();
    const [snapshot] = event;
    const path = STREAM_ENDPOINTS[0]!.path;
    const withoutEvent = { ...snapshot!.data! };
    delete withoutEvent.event;
    expect(refusals(path, { ...snapshot!, data: withoutEvent })).toEqual([expect.stringMatching(/^data: .*event/)]);
    expect(refusals(path, { ...snapshot!, id: undefined })).toEqual([expect.stringMatching(/^fields: .*id/)]);
  });
});
