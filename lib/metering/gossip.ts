import type { UsageNotice } from "../bus/index.ts";
import type { StreamSlots } from "./stream-slots.ts";
import type { MonthTotal, Tally } from "./tally.ts";
import type { UsageBook } from "./usage.ts";

// Instances sharing PostgreSQL announce, with each flush (the bus's usageTotals), their month
// totals, their admissions in the current second and their open streams; each decides from its
// own counts plus what it heard.

// pg_notify takes at most 8000 bytes; an entry is under 90, so a notice of 80 fits.
const NOTICE_ENTRIES = 80;
// Another instance's open streams count until it has not repeated them for this long (it died).
const STREAMS_STALE_MS = 15_000;

type Peer = { second: number; admitted: number };
type PeerStreams = { open: number; at: number };

/** What this instance tells the others and has heard from them. */
export class Gossip {
  private readonly peers = new Map<string, Map<string, Peer>>();
  private readonly peerStreams = new Map<string, Map<string, PeerStreams>>();
  private readonly instance: string;
  private readonly usage: UsageBook;
  private readonly slots: StreamSlots;
  private readonly now: () => Date;

  constructor(instance: string, usage: UsageBook, slots: StreamSlots, now: () => Date) {
    this.instance = instance;
    this.usage = usage;
    this.slots = slots;
    this.now = now;
  }

  /** Another instance's notice. Totals only ever raise what we know; our own notices are skipped. */
  hear(notice: UsageNotice): void {
    if (notice.i === this.instance) return;
    for (const [keyId, month, total] of notice.t) this.usage.heard(keyId, month, total);
    for (const [keyId, second, admitted] of notice.s) {
      let peers = this.peers.get(keyId);
      if (!peers) {
        peers = new Map();
        this.peers.set(keyId, peers);
      }
      peers.set(notice.i, { second, admitted });
      for (const [instance, peer] of peers) if (peer.second < second - 1) peers.delete(instance);
    }
    const at = this.now().getTime();
    for (const [keyId, open] of notice.o) {
      let peers = this.peerStreams.get(keyId);
      if (!peers) {
        peers = new Map();
        this.peerStreams.set(keyId, peers);
      }
      if (open > 0) peers.set(notice.i, { open, at });
      else peers.delete(notice.i);
    }
  }

  /** The key's admissions the others announced for this UTC second. */
  inSecond(keyId: string, second: number): number {
    const peers = this.peers.get(keyId);
    if (!peers) return 0;
    let admitted = 0;
    for (const peer of peers.values()) if (peer.second === second) admitted += peer.admitted;
    return admitted;
  }

  /** The key's streams the others hold open, as of `at` (epoch ms). */
  streamsElsewhere(keyId: string, at: number): number {
    let open = 0;
    const peers = this.peerStreams.get(keyId);
    for (const [instance, peer] of peers ?? []) {
      if (at - peer.at < STREAMS_STALE_MS) open += peer.open;
      else peers!.delete(instance); // an instance that stopped repeating its streams has ended
    }
    return open;
  }

  /** A flush's announcement to the other instances, in pieces that fit pg_notify. */
  notices(totals: MonthTotal[], tally: Tally, streams: Set<string>): UsageNotice[] {
    const entries: ((notice: UsageNotice) => void)[] = [];
    for (const { keyId, month, requests } of totals) entries.push((n) => n.t.push([keyId, month, requests]));
    for (const keyId of tally.keys()) {
      const usage = this.usage.get(keyId);
      if (usage) entries.push((n) => n.s.push([keyId, usage.second, usage.secondAdmitted]));
    }
    for (const keyId of streams) entries.push((n) => n.o.push([keyId, this.slots.of(keyId)]));
    const notices: UsageNotice[] = [];
    for (let i = 0; i < entries.length; i += NOTICE_ENTRIES) {
      const notice: UsageNotice = { i: this.instance, t: [], s: [], o: [] };
      for (const add of entries.slice(i, i + NOTICE_ENTRIES)) add(notice);
      notices.push(notice);
    }
    return notices;
  }
}
