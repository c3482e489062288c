import { describe, expect, it, vi } from "vitest";
import { FeedMirror } from "../feed/mirror.ts";
import type { Revision } from "../feed/history.ts";
import { eventState } from "../../testing/stream-fakes.ts";
import { BoardRevision } from "./board-revision.ts";
import * as messages from "./messages.ts";
import { freshness } from "./messages.ts";

// One revision's board messages, built once per market type and shared by every board of the view
// that shows the event, whatever its other sports.

const at = new Date("2026-11-21T18:05:00.000Z");
const market = (id: string, type: string) => ({
  id,
  type,
  name: type,
  line: null,
  status: "open",
  outcomes: [{ id: `${id}-o1`, name: "Home", price: 2.1, status: "active" }],
  updated_at: at.toISOString(),
});

/** A live soccer event, and a revision of its markets of two types. */
function pricesChanged() {
  const mirror = new FeedMirror();
  mirror.reset(0, new Date(0), []);
  mirror.apply({ revision: 1, eventId: "e1", kind: "event", recordedAt: at, state: eventState("e1") });
  const revision: Revision = {
    revision: 2,
    eventId: "e1",
    kind: "markets",
    recordedAt: at,
    state: [market("m1", "match_winner"), market("m2", "totals")],
  };
  mirror.apply(revision);
  return { revision, document: mirror.get("e1")! };
}

describe("a revision's board messages", () => {
  it("are built and encoded once for every board of the same market type that shows the event's sport", () => {
    const { revision, document } = pricesChanged();
    const build = vi.spyOn(messages, "boardMessages");
    const board = new BoardRevision(revision, document, "live", freshness(false, 0, at));
    const soccer = board.messages({ sports: ["soccer"], type: null });
    const soccerAndTennis = board.messages({ sports: ["tennis", "soccer"], type: null });
    expect(soccer).toHaveLength(1);
    expect(soccerAndTennis).toBe(soccer);
    expect(soccerAndTennis[0]!.bytes).toBe(soccer[0]!.bytes);
    expect(soccer[0]!.id).toBe(2);
    expect(build).toHaveBeenCalledTimes(1);
    build.mockRestore();
  });

  it("differ between market types, each with only the markets of its type", () => {
    const { revision, document } = pricesChanged();
    const board = new BoardRevision(revision, document, "live", freshness(false, 0, at));
    const all = board.messages({ sports: ["soccer"], type: null });
    const totals = board.messages({ sports: ["soccer"], type: "totals" });
    expect(totals[0]!.bytes).not.toBe(all[0]!.bytes);
    const marketsOf = (bytes: Buffer) =>
      (JSON.parse(/^data: (.*)$/m.exec(bytes.toString())![1]!) as { markets: { id: string }[] }).markets.map(
        (m) => m.id,
      );
    expect(marketsOf(all[0]!.bytes)).toEqual(["m1", "m2"]);
    expect(marketsOf(totals[0]!.bytes)).toEqual(["m2"]);
  });

  it("are none for a board whose sports leave the event out, though another board shares them", () => {
    const { revision, document } = pricesChanged();
    const board = new BoardRevision(revision, document, "live", freshness(false, 0, at));
    expect(board.messages({ sports: ["soccer"], type: null })).toHaveLength(1);
    expect(board.messages({ sports: ["tennis"], type: null })).toEqual([]);
  });
});
