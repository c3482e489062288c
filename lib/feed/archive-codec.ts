import { deflateRawSync, inflateRawSync } from "node:zlib";
import { isDeepStrictEqual } from "node:util";
import type { RevisionKind } from "../db/schema/index.ts";

// The archive's compact form of one event's revisions of one kind in one bucket of time: the
// state before the first, then each revision as what it changed, deflated together. Pure, so the
// exact round trip is unit-tested apart from the database.

/** One revision as the recent table holds it: the full state after it. */
export type FullRevision = { revision: number; recordedAt: Date; state: unknown };

/**
 * What one revision changed. Markets (an array of objects with an `id`) by market: those new
 * (`s`), those changed by top-level key (`u`, usually a market's outcomes), those dropped, and
 * the order of ids when it is not the one replacing and appending gives. Other states (objects)
 * by top-level key. `f` carries the whole state when neither fits.
 */
type KeyDelta = { c?: Record<string, unknown>; r?: string[] };
type Delta =
  | { a: { s?: Keyed[]; u?: (KeyDelta & { id: string })[]; d?: string[]; o?: string[] } }
  | { k: KeyDelta }
  | { f: unknown };

/**
 * The chunk as stored, a line each so a reader stops at the revision it wants: first the revision
 * before the chunk's first (null: none yet) as [revision, ms after the chunk's start, state], then
 * each change as [revision step, ms after the chunk's start, delta].
 */
type Line = [number, number, Delta];

type Keyed = { id: string };

const isKeyedArray = (value: unknown): value is Keyed[] =>
  Array.isArray(value) && value.every((item) => typeof item === "object" && item !== null && "id" in item);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function applyKeys(before: Record<string, unknown>, { c = {}, r = [] }: KeyDelta): Record<string, unknown> {
  const next: Record<string, unknown> = { ...before };
  for (const key of r) delete next[key];
  return Object.assign(next, c);
}

function keyDelta(before: Record<string, unknown>, after: Record<string, unknown>): KeyDelta {
  const c = Object.fromEntries(Object.entries(after).filter(([key, value]) => !isDeepStrictEqual(before[key], value)));
  const r = Object.keys(before).filter((key) => !(key in after));
  return { ...(Object.keys(c).length ? { c } : {}), ...(r.length ? { r } : {}) };
}

function applyDelta(before: unknown, delta: Delta): unknown {
  if ("f" in delta) return delta.f;
  if ("a" in delta) {
    const { s = [], u = [], d = [], o } = delta.a;
    const dropped = new Set(d);
    const set = new Map(s.map((item) => [item.id, item]));
    const updated = new Map(u.map((item) => [item.id, item]));
    const next: Keyed[] = [];
    for (const item of (before as Keyed[] | null) ?? []) {
      if (dropped.has(item.id)) continue;
      const update = updated.get(item.id);
      next.push(update ? (applyKeys(item, update) as Keyed) : item);
    }
    next.push(...set.values());
    if (!o) return next;
    const byId = new Map(next.map((item) => [item.id, item]));
    return o.map((id) => byId.get(id)!);
  }
  return applyKeys(before as Record<string, unknown>, delta.k);
}

function deltaOf(before: unknown, after: unknown): Delta {
  let delta: Delta = { f: after };
  if (isKeyedArray(before) && isKeyedArray(after)) {
    const old = new Map(before.map((item) => [item.id, item]));
    const ids = new Set(after.map((item) => item.id));
    const s = after.filter((item) => !old.has(item.id));
    const u = after
      .filter((item) => old.has(item.id) && !isDeepStrictEqual(old.get(item.id), item))
      .map((item) => ({ id: item.id, ...keyDelta(old.get(item.id)!, item) }));
    const d = before.filter((item) => !ids.has(item.id)).map((item) => item.id);
    const a: Extract<Delta, { a: unknown }>["a"] = {
      ...(s.length ? { s } : {}),
      ...(u.length ? { u } : {}),
      ...(d.length ? { d } : {}),
    };
    const placed = applyDelta(before, { a }) as Keyed[];
    if (placed.length !== after.length || placed.some((item, i) => item.id !== after[i]!.id)) {
      a.o = after.map((item) => item.id);
    }
    delta = { a };
  } else if (isObject(before) && isObject(after)) {
    const c = Object.fromEntries(
      Object.entries(after).filter(([key, value]) => !isDeepStrictEqual(before[key], value)),
    );
    const r = Object.keys(before).filter((key) => !(key in after));
    delta = { k: { ...(Object.keys(c).length ? { c } : {}), ...(r.length ? { r } : {}) } };
  }
  // Key order is part of the state a reader is served: what does not come back exactly is kept whole.
  return JSON.stringify(applyDelta(before, delta)) === JSON.stringify(after) ? delta : { f: after };
}

/** One (event, kind) chunk, deflated: `before` is the revision before `revisions[0]`, null when there was none. */
export function encodeChunk(before: FullRevision | null, revisions: readonly FullRevision[], startsAt: Date): Buffer {
  const lines = [
    JSON.stringify(before && [before.revision, before.recordedAt.getTime() - startsAt.getTime(), before.state]),
  ];
  let state: unknown = before?.state ?? null;
  let previous = revisions[0]!.revision;
  for (const revision of revisions) {
    const line: Line = [
      revision.revision - previous,
      revision.recordedAt.getTime() - startsAt.getTime(),
      deltaOf(state, revision.state),
    ];
    lines.push(JSON.stringify(line));
    previous = revision.revision;
    state = revision.state;
  }
  return deflateRawSync(lines.join("\n"));
}

/** `textBytes`: the length of the chunk's text once inflated. */
export type DecodedChunk = { before: FullRevision | null; revisions: FullRevision[]; textBytes: number };

/**
 * The chunk's revisions with their full states, from its first revision and start; with `upTo`,
 * only those at or below it (the rest is not parsed).
 */
export function decodeChunk(payload: Uint8Array, firstRevision: number, startsAt: Date, upTo = Infinity): DecodedChunk {
  const reader = new ChunkReader(payload, firstRevision, startsAt);
  const count = reader.readThrough(upTo);
  return { before: reader.before, revisions: reader.revisions.slice(0, count), textBytes: reader.textBytes };
}

/**
 * A chunk decoded only as far as it has been read: a moment early in the bucket parses and applies
 * the changes up to it, not the whole bucket's, and a later read goes on from there. Each state is
 * built from the one before without changing it, so the states handed out stay as they were.
 */
export class ChunkReader {
  readonly before: FullRevision | null;
  /** The revisions decoded so far, in order. */
  readonly revisions: FullRevision[] = [];
  readonly textBytes: number;
  private readonly startsAt: number;
  private lines: string[] | null;
  private next = 1;
  private revision: number;
  private state: unknown;

  constructor(payload: Uint8Array, firstRevision: number, startsAt: Date) {
    const text = inflateRawSync(payload);
    this.textBytes = text.byteLength;
    this.lines = text.toString("utf8").split("\n");
    this.startsAt = startsAt.getTime();
    const b = JSON.parse(this.lines[0]!) as [number, number, unknown] | null;
    this.before = b && { revision: b[0], recordedAt: new Date(this.startsAt + b[1]), state: b[2] };
    this.state = this.before?.state ?? null;
    this.revision = firstRevision;
  }

  /** Decodes the revisions at or below `upTo` not decoded yet; returns how many of all are at or below it. */
  readThrough(upTo: number): number {
    const lines = this.lines;
    while (lines && this.next < lines.length) {
      const line = lines[this.next]!;
      // Each line starts `[step,`: the revision is known without parsing the change.
      const revision = this.revision + Number(line.slice(1, line.indexOf(",")));
      if (revision > upTo) break;
      const [, ms, delta] = JSON.parse(line) as Line;
      this.state = applyDelta(this.state, delta);
      this.revisions.push({ revision, recordedAt: new Date(this.startsAt + ms), state: this.state });
      this.revision = revision;
      this.next++;
    }
    if (lines && this.next >= lines.length) this.lines = null;
    const last = this.revisions.at(-1);
    if (!last || last.revision <= upTo) return this.revisions.length;
    return firstAbove(this.revisions, upTo);
  }
}

/** One keyed item (a market) after a revision; null where the state holds none. */
export type ItemRevision = { revision: number; recordedAt: Date; item: Keyed | null };

/**
 * The item `id` (a market) before a chunk and after each of its revisions: what `decodeChunk`'s
 * states hold of it, found by parsing only the lines that can change it, since a line that neither
 * names the id nor replaces the state whole leaves it as it was. A market's history reads one
 * market of ten without parsing the other nine's changes. Ids are unique in a state (the ingest
 * refuses a market twice in an event); with two of one id, which is followed is not defined.
 */
export function itemHistory(
  payload: Uint8Array,
  firstRevision: number,
  startsAt: Date,
  id: string,
): { before: ItemRevision | null; revisions: ItemRevision[] } {
  const lines = inflateRawSync(payload).toString("utf8").split("\n");
  const start = startsAt.getTime();
  const b = JSON.parse(lines[0]!) as [number, number, unknown] | null;
  let item = b ? itemOf(b[2], id) : null;
  const before = b && { revision: b[0], recordedAt: new Date(start + b[1]), item };
  const named = JSON.stringify(id);
  const revisions: ItemRevision[] = [];
  let revision = firstRevision;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    // Each line starts `[step,ms,` and then its change: the time is known without parsing it.
    const stepEnd = line.indexOf(",");
    const msEnd = line.indexOf(",", stepEnd + 1);
    revision += Number(line.slice(1, stepEnd));
    if (line.includes(named) || line.startsWith('{"f":', msEnd + 1)) {
      item = itemAfter(item, (JSON.parse(line) as Line)[2], id);
    }
    revisions.push({ revision, recordedAt: new Date(start + Number(line.slice(stepEnd + 1, msEnd))), item });
  }
  return { before, revisions };
}

const itemOf = (state: unknown, id: string): Keyed | null =>
  (Array.isArray(state) && (state as Keyed[]).find((item) => item.id === id)) || null;

/** The item after `delta`, as `applyDelta` would place it in the state. */
function itemAfter(item: Keyed | null, delta: Delta, id: string): Keyed | null {
  if ("f" in delta) return itemOf(delta.f, id);
  if ("k" in delta) return null;
  const { s = [], u = [], d = [], o } = delta.a;
  const update = u.find((change) => change.id === id);
  const kept = item && !d.includes(id) ? (update ? (applyKeys(item, update) as Keyed) : item) : null;
  const set = s.find((added) => added.id === id) ?? null;
  return o && !o.includes(id) ? null : (kept ?? set);
}

/** The index of the first revision above `upTo` in revisions in order (a binary search). */
function firstAbove(revisions: readonly FullRevision[], upTo: number): number {
  let low = 0;
  let high = revisions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (revisions[middle]!.revision <= upTo) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The times of a bucket's revisions, in revision order, as ms after its start, deflated. */
export const encodeClock = (times: readonly Date[], startsAt: Date): Buffer =>
  deflateRawSync(JSON.stringify(times.map((t) => t.getTime() - startsAt.getTime())));

export const decodeClock = (payload: Uint8Array, startsAt: Date): number[] =>
  (JSON.parse(inflateRawSync(payload).toString("utf8")) as number[]).map((ms) => startsAt.getTime() + ms);

/** The chunks of one bucket: its revisions grouped by event and kind, in revision order. */
export function groupByEventKind<T extends { eventId: string; kind: RevisionKind }>(
  revisions: readonly T[],
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const revision of revisions) {
    const key = `${revision.eventId}\u0000${revision.kind}`;
    const group = groups.get(key) ?? [];
    group.push(revision);
    groups.set(key, group);
  }
  return groups;
}
