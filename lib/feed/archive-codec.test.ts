import { describe, expect, it, vi } from "vitest";
import {
  ChunkReader,
  decodeChunk,
  decodeClock,
  encodeChunk,
  encodeClock,
  itemHistory,
  type FullRevision,
} from "./archive-codec.ts";

const startsAt = new Date("2026-11-20T10:00:00Z");
const at = (ms: number) => new Date(startsAt.getTime() + ms);
const outcome = (id: string, price: number) => ({ id, name: id.toUpperCase(), price, status: "active" });
const market = (id: string, price: number, status = "open") => ({
  id,
  type: "match_winner",
  status,
  outcomes: [outcome("h", price), outcome("a", 3.1)],
});

function roundTrip(before: FullRevision | null, states: unknown[]) {
  const revisions = states.map((state, i) => ({ revision: 10 + i * 3, recordedAt: at(i * 1_500), state }));
  const chunk = decodeChunk(encodeChunk(before, revisions, startsAt), 10, startsAt);
  expect(chunk.before).toEqual(before);
  expect(chunk.revisions).toEqual(revisions);
  // Exactly, key order included: a reader is served these as they were stored.
  expect(chunk.revisions.map((r) => JSON.stringify(r.state))).toEqual(states.map((s) => JSON.stringify(s)));
}

describe("the archive's chunks", () => {
  it("give back every markets state exactly: prices moved, markets added, dropped and reordered", () => {
    const before = { revision: 7, recordedAt: at(-20_000), state: [market("m1", 1.5)] };
    roundTrip(before, [
      [market("m1", 1.6)],
      [market("m1", 1.6), market("m2", 2.2)],
      [market("m2", 2.2), market("m1", 1.6)],
      [market("m2", 2.4, "suspended")],
      [market("m2", 2.4, "suspended")],
      [],
      [market("m3", 9)],
    ]);
  });

  it("give back every event state exactly, from none: keys changed, added and removed, key order kept", () => {
    roundTrip(null, [
      { id: "e", status: "upcoming", score: { home: 0, away: 0 }, clock: null },
      { id: "e", status: "live", score: { home: 0, away: 0 }, clock: "01:00" },
      {
        id: "e",
        status: "live",
        score: { home: 1, away: 0 },
        clock: "02:00",
        stats: [{ type: "shots", home: 1, away: 0 }],
      },
      { id: "e", status: "live", score: { home: 1, away: 0 }, clock: "02:00" },
      { clock: "03:00", id: "e", status: "live", score: { home: 1, away: 0 } },
    ]);
  });

  it("store a change to one price in a few bytes, not the whole state", () => {
    const markets = Array.from({ length: 12 }, (_, i) => market(`m${i}`, 1.5 + i / 10));
    const states = Array.from({ length: 300 }, (_, i) =>
      markets.map((m, j) => (j === i % 12 ? market(m.id, 1.5 + ((i * 7) % 50) / 100) : m)),
    );
    const revisions = states.map((state, i) => ({ revision: i + 1, recordedAt: at(i * 1_000), state }));
    const bytes = encodeChunk({ revision: 0, recordedAt: at(-1), state: markets }, revisions, startsAt).length;
    const full = states.reduce((sum, s) => sum + JSON.stringify(s).length, 0);
    expect(bytes / 300).toBeLessThan(60);
    expect(bytes).toBeLessThan(full / 50);
  });

  it("are read as far as asked, then on from there, to the same states as read whole", () => {
    const states = Array.from({ length: 9 }, (_, i) => [market("m1", 1.5 + i / 10), market("m2", 2 + (i % 3) / 10)]);
    const revisions = states.map((state, i) => ({ revision: 10 + i * 3, recordedAt: at(i * 1_500), state }));
    const payload = encodeChunk(null, revisions, startsAt);
    const reader = new ChunkReader(payload, 10, startsAt);
    // Revisions 10, 13, ..., 34: through 17 are 10 to 16; through 9 none; through 30 nine less two.
    expect(reader.readThrough(17)).toBe(3);
    expect(reader.revisions).toHaveLength(3);
    expect(reader.readThrough(9)).toBe(0);
    expect(reader.readThrough(30)).toBe(7);
    expect(reader.readThrough(16)).toBe(3);
    expect(reader.readThrough(Infinity)).toBe(9);
    expect(reader.revisions).toEqual(revisions);
    expect(reader.revisions).toEqual(decodeChunk(payload, 10, startsAt).revisions);
  });

  it("keep each revision's time to the millisecond", () => {
    const times = [at(0), at(1), at(299_999), at(-5)];
    expect(decodeClock(encodeClock(times, startsAt), startsAt)).toEqual(times.map((t) => t.getTime()));
  });

  it("give one market's history as the whole states hold it, parsing only the lines that name it", () => {
    // A seeded walk over what a markets state does: prices move, markets come, go and are reordered,
    // and now and then the state is replaced whole or emptied (ids stay unique, as the ingest keeps them).
    let seed = 11;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const ids = ["m1", "m2", 'm:3 \u00e9"q"', "m4"];
    let state: ReturnType<typeof market>[] = [market("m1", 1.5), market("m2", 2)];
    const states: unknown[] = [];
    for (let i = 0; i < 400; i++) {
      const roll = random();
      const id = ids[Math.floor(random() * ids.length)]!;
      const price = 1 + Math.round(random() * 500) / 100;
      if (roll < 0.5) state = state.map((m) => (m.id === id ? market(id, price) : m));
      else if (roll < 0.65 && !state.some((m) => m.id === id)) state = [...state, market(id, price)];
      else if (roll < 0.75) state = state.filter((m) => m.id !== id);
      else if (roll < 0.85) state = [...state].reverse();
      else if (roll < 0.9) state = roll < 0.87 ? [] : [market(id, price), ...(id === "m1" ? [] : [market("m1", 9)])];
      // Keys reordered: the change is stored whole, and names only the markets still there.
      else if (roll < 0.93)
        state = state
          .filter((m) => m.id !== id)
          .map((m) => ({ outcomes: m.outcomes, id: m.id, type: m.type, status: m.status }));
      states.push(state);
    }
    const revisions = states.map((s, i) => ({ revision: 50 + i * 2, recordedAt: at(i * 700), state: s }));
    for (const before of [null, { revision: 49, recordedAt: at(-3), state: [market("m4", 7)] }]) {
      const payload = encodeChunk(before, revisions, startsAt);
      const whole = decodeChunk(payload, 50, startsAt);
      const find = (s: unknown, id: string) => (s as { id: string }[]).find((m) => m.id === id) ?? null;
      for (const id of [...ids, "absent"]) {
        const history = itemHistory(payload, 50, startsAt, id);
        expect(history.before, id).toEqual(before && { ...before, state: undefined, item: find(before.state, id) });
        expect(history.revisions, id).toEqual(
          whole.revisions.map((r) => ({ revision: r.revision, recordedAt: r.recordedAt, item: find(r.state, id) })),
        );
      }
    }
    // Twelve markets, one price changed a revision: a market's history parses its own twelfth.
    const markets = Array.from({ length: 12 }, (_, i) => market(`m${i}`, 1.5));
    let now = markets;
    const moves = Array.from(
      { length: 240 },
      (_, i) => (now = now.map((m, j) => (j === i % 12 ? market(m.id, 2 + i / 100) : m))),
    );
    const payload = encodeChunk(
      { revision: 0, recordedAt: at(-1), state: markets },
      moves.map((s, i) => ({ revision: i + 1, recordedAt: at(i), state: s })),
      startsAt,
    );
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(itemHistory(payload, 1, startsAt, "m5").revisions).toHaveLength(240);
      expect(parse.mock.calls.length).toBe(1 + 240 / 12);
    } finally {
      parse.mockRestore();
    }
  });
});
