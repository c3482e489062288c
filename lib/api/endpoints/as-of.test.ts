import { describe, expect, it } from "vitest";
import type { Revision } from "../../feed/history.ts";
import { FeedMirror } from "../../feed/mirror.ts";
import { eventState, FakeFeed, keyRecord } from "../../../testing/stream-fakes.ts";
import { revisionOf, servedAt } from "./as-of.ts";
import { ApiError } from "../request/errors.ts";
import { Payload } from "../request/payload.ts";
import type { RequestContext } from "../request/pipeline.ts";
import { type Moment } from "./queries.ts";
import { AsOfQuery } from "./queries.ts";

// `as_of`: what it accepts, which revision a moment is for a key, and when the history cannot say.

const T0 = Date.parse("2026-11-25T12:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);

describe("the as_of parameter", () => {
  it("reads an ISO 8601 UTC time or a revision in decimal digits", () => {
    const parse = (value: string) => AsOfQuery.parse({ as_of: value }).as_of;
    expect(parse("2026-11-21T15:41:07Z")).toEqual({ at: new Date("2026-11-21T15:41:07.000Z") });
    expect(parse("2026-11-21T15:41:07.25Z")).toEqual({ at: new Date("2026-11-21T15:41:07.250Z") });
    expect(parse("48213")).toEqual({ revision: 48213 });
    expect(parse("0")).toEqual({ revision: 0 });
    expect(AsOfQuery.parse({})).toEqual({});
  });

  it.each([
    "2026-11-21T15:41:07+01:00",
    "2026-11-21T15:41Z",
    "2026-11-21",
    "2026-02-30T00:00:00Z",
    "-1",
    "007",
    "1e3",
    "0x10",
    " 12",
    "1234567890123456",
    "",
    "yesterday",
  ])("refuses %j, saying what it takes", (value) => {
    const parsed = AsOfQuery.safeParse({ as_of: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.message).toMatch(/ISO 8601 UTC time .* or a revision/);
  });
});

/** A feed whose revision n was recorded at T0 + 10 n seconds: events a and b, a's markets. */
function world(): { feed: FakeFeed; present: FeedMirror } {
  const feed = new FakeFeed();
  const states: [string, Revision["kind"], unknown][] = [
    ["a", "event", eventState("a")],
    ["b", "event", eventState("b")],
    ["a", "markets", []],
    ["a", "event", { ...eventState("a"), score: { home: 1, away: 0 } }],
    ["b", "event", { ...eventState("b"), status: "finished" }],
  ];
  const present = new FeedMirror();
  states.forEach(([eventId, kind, state], index) => {
    const revision: Revision = { revision: index + 1, eventId, kind, recordedAt: at(10 * (index + 1)), state };
    feed.history.push(revision);
    present.apply(revision);
  });
  return { feed, present };
}

function contextOf(feed: FakeFeed, view: FeedMirror, options: { now: Date; sandbox?: boolean }): RequestContext {
  const sandbox = options.sandbox ?? false;
  return {
    key: keyRecord({ environment: sandbox ? "sandbox" : "production" }),
    at: options.now,
    sandbox,
    delaySeconds: sandbox ? 15 : 0,
    view,
    history: feed,
    historySeconds: 120,
  } as unknown as RequestContext;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { code: (error as ApiError).code, message: (error as ApiError).message };
}

describe("the revision of a moment", () => {
  const { feed, present } = world();
  const context = contextOf(feed, present, { now: at(60) });
  const of = (moment: Moment) => revisionOf(context, moment, "as_of");

  it("is, for a time, the newest revision recorded at or before it", async () => {
    expect(await of({ at: at(30) })).toBe(3);
    expect(await of({ at: at(39.999) })).toBe(3);
    expect(await of({ at: at(40) })).toBe(4);
    expect(await of({ at: at(60) })).toBe(5);
    expect(await of({ revision: 2 })).toBe(2);
    expect(await of({ revision: 5 })).toBe(5);
  });

  it("is refused later than the key sees: 400, and for a sandbox key saying why", async () => {
    expect(await refusal(of({ at: at(61) }))).toMatchObject({ code: "invalid_parameter" });
    expect(await refusal(of({ revision: 6 }))).toMatchObject({
      code: "invalid_parameter",
      message: expect.stringContaining("latest is revision 5"),
    });
    // The sandbox's view is its delay (15 s) behind: at T0+60 it holds revision 4 (recorded at T0+40).
    const delayed = new FeedMirror();
    for (const revision of feed.history.slice(0, 4)) delayed.apply(revision);
    const sandbox = contextOf(feed, delayed, { now: at(60), sandbox: true });
    expect(await revisionOf(sandbox, { at: at(45) }, "as_of")).toBe(4);
    for (const moment of [{ at: at(46) }, { revision: 5 }]) {
      expect(await refusal(revisionOf(sandbox, moment, "as_of"))).toMatchObject({
        code: "invalid_parameter",
        message: expect.stringMatching(/^A sandbox key sees the feed as it was 15 seconds ago/),
      });
    }
  });

  it("is refused older than the history kept: 410", async () => {
    // Kept for 120 s: at T0+150, from T0+30 (revision 3) on.
    const later = contextOf(feed, present, { now: at(150) });
    expect(await revisionOf(later, { at: at(30) }, "as_of")).toBe(3);
    expect(await revisionOf(later, { revision: 3 }, "as_of")).toBe(3);
    expect(await refusal(revisionOf(later, { at: at(29) }, "as_of"))).toMatchObject({ code: "retention_exceeded" });
    expect(await refusal(revisionOf(later, { revision: 2 }, "as_of"))).toMatchObject({ code: "retention_exceeded" });
    // Pruning that went further: the history is whole from the last revision recorded before its cut.
    feed.retainedAfter = 4;
    expect(await refusal(revisionOf(context, { revision: 3 }, "as_of"))).toMatchObject({ code: "retention_exceeded" });
    expect(await refusal(revisionOf(context, { at: at(35) }, "as_of"))).toMatchObject({ code: "retention_exceeded" });
    expect(await revisionOf(context, { revision: 4 }, "as_of")).toBe(4);
    feed.retainedAfter = 0;
  });
});

describe("an answer at a moment", () => {
  const { feed, present } = world();
  const context = contextOf(feed, present, { now: at(60) });
  const dataOf = (reply: { payload: Payload }) =>
    (JSON.parse(`${reply.payload.bytes.toString()}}`) as { data: unknown }).data;
  const board = (view: FeedMirror) => ({
    payload: new Payload(view.inListOrder().map((d) => [d.event.id, d.event.status, d.event.score.home])),
  });

  it("is served from the history's states at its revision, with meta.revision", async () => {
    const reply = await servedAt(context, { revision: 3 }, board);
    expect(dataOf(reply)).toEqual([
      ["a", "live", 0],
      ["b", "live", 0],
    ]);
    expect(reply.meta).toEqual({ revision: 3 });
    const one = await servedAt(context, { at: at(45) }, board, ["b"]);
    expect(dataOf(one)).toEqual([["b", "live", 0]]);
    expect(one.meta).toEqual({ revision: 4 });
  });

  it("is served from the key's view itself at its revision", async () => {
    let served: FeedMirror | null = null;
    await servedAt(context, { revision: 5 }, (view) => {
      served = view;
      return board(view);
    });
    expect(served).toBe(present);
  });
});
