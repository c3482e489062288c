import type { ViewName } from "../feed/views.ts";
import type { BoardFilter } from "./messages.ts";
import type { StreamRequest } from "./stream.ts";

export type ChannelSpec = { kind: "event"; eventId: string; sport: string } | { kind: "board"; filter: BoardFilter };

/** One chunk of a tick's messages for one channel, with the revision of its last message. */
export type Chunk = { bytes: Buffer; lastId: number | undefined; ends: boolean };

/**
 * The subscribers who are sent the same bytes: one event's stream, or one board (sports, market
 * type), in one view (the present, or the sandbox's delayed view). A message is serialised once per
 * channel, however many subscribers it has.
 */
export type Channel = ChannelSpec & {
  id: string;
  view: ViewName;
  subscribers: Set<Subscriber>;
  pending: Buffer[];
  pendingLastId: number | undefined;
  /** The event finished: the channel sends `end` with its next flush and closes. */
  ending: boolean;
  /** A board's last snapshot per resync reason ("" for none), for clients that open meanwhile. */
  snapshots: Map<string, { revision: number; madeAt: number; bytes: Buffer }>;
};

/** The channel's id: a board's sports in any order are the same board. */
export function channelId(view: ViewName, spec: ChannelSpec): string {
  return spec.kind === "event"
    ? `${view}|event|${spec.eventId}`
    : `${view}|board|${[...spec.filter.sports].sort().join(",")}|${spec.filter.type ?? ""}`;
}

/** The sports a channel's stream shows: what its key must still cover. */
export function channelSports(channel: ChannelSpec): readonly string[] {
  return channel.kind === "board" ? channel.filter.sports : [channel.sport];
}

/** Every channel with a subscriber, by id, and by what a revision of a view concerns. */
export class ChannelTable {
  private readonly byId = new Map<string, Channel>();
  private readonly events: Record<ViewName, Map<string, Channel>> = { present: new Map(), delayed: new Map() };
  private readonly boards: Record<ViewName, Set<Channel>> = { present: new Set(), delayed: new Set() };

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<Channel> {
    return this.byId.values();
  }

  eventChannel(view: ViewName, eventId: string): Channel | undefined {
    return this.events[view].get(eventId);
  }

  boardChannels(view: ViewName): ReadonlySet<Channel> {
    return this.boards[view];
  }

  /** The channel of this view and spec, made when it has none. */
  open(view: ViewName, spec: ChannelSpec): Channel {
    const id = channelId(view, spec);
    let channel = this.byId.get(id);
    if (!channel) {
      channel = {
        ...spec,
        id,
        view,
        subscribers: new Set(),
        pending: [],
        pendingLastId: undefined,
        ending: false,
        snapshots: new Map(),
      };
      this.byId.set(id, channel);
      if (channel.kind === "event") this.events[view].set(channel.eventId, channel);
      else this.boards[view].add(channel);
    }
    return channel;
  }

  /** Forgets a channel that has no subscriber left. */
  drop(channel: Channel): void {
    if (this.byId.get(channel.id) !== channel) return;
    this.byId.delete(channel.id);
    if (channel.kind === "event") this.events[channel.view].delete(channel.eventId);
    else this.boards[channel.view].delete(channel);
  }

  /** Subscribers per channel kind and view, for metrics. */
  subscribersByView(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const channel of this.byId.values()) {
      const name = `${channel.view === "present" ? "production" : "sandbox"}:${channel.kind}`;
      counts.set(name, (counts.get(name) ?? 0) + channel.subscribers.size);
    }
    return counts;
  }
}

/**
 * `replaying`: a resuming client is sent what it missed, its live messages held meanwhile; `live`:
 * it is sent each flush; `behind`: it stopped reading and is sent nothing until it drains;
 * `closed`: gone, by its own doing or the service's.
 */
export type SubscriberState = "replaying" | "live" | "behind" | "closed";

export type Subscriber = StreamRequest & {
  channel: Channel;
  state: SubscriberState;
  /** The last revision this client was sent: every later message has a higher id. */
  lastId: number;
  /** Live chunks held while a replay from the history is being written. */
  held: Chunk[];
  heldBytes: number;
  openedAt: number;
  messages: number;
};
