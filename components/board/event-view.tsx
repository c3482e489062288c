"use client";

import "./zod-jitless";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { EventAnswer, LineupAnswer } from "@/lib/api/endpoints/schemas";
import { EventStreamMessage } from "@/lib/api/endpoints/stream-schemas";
import { BackToBoard, LineupsPanel, MarketList, PastBanner, ScoreCard, Statistics, WhatChanged } from "./event-parts";
import {
  isOver,
  readAnswer,
  ReadError,
  retryUnlessRefused,
  useMarketHistories,
  useMarketsBeforeEnd,
  usePastRow,
} from "./event-reads";
import { EventStore, type EventState, type FollowedEvent } from "./event-store";
import { useClock, useFreshness, useSettled, useStoredValue, useStoreValue, useStreamInto } from "./hooks";
import { LineMovement } from "./line-movement";
import type { OddsFormat } from "./odds-format";
import { BoardFrame, StatusChip } from "./parts";
import { chartFrom, historyFrom, timelineWindow } from "./past-moment";
import { marketsAsTheyEnded, mergePoints } from "./price-series";
import { SPORT_LABELS } from "./sports";
import { TimelineScrubber } from "./timeline-scrubber";

// One event followed through its own stream until it is over: score, clock and period, statistics,
// lineups, every market with its line movement, and what changed; and, on the timeline, the
// event's board row as it was at any moment of the history kept, while the stream goes on. An event
// over before the page opened has no stream (204): its final state is read, its settled markets
// from each market's history, and its timeline ends at the final whistle.

/** The past is read once the range has stood still this long (ms): dragging it asks nothing. */
const SETTLE_MS = 250;

type Props = { id: string; pingSeconds: number; historySeconds: number };

export function EventView({ id, pingSeconds, historySeconds }: Props) {
  const path = `/api/v1/events/${encodeURIComponent(id)}`;
  const [store] = useState(() => new EventStore());
  const event = useQuery({
    queryKey: ["event", id],
    queryFn: async () => (await readAnswer(path, EventAnswer)).data,
    retry: retryUnlessRefused,
  });
  const lineups = useQuery({
    queryKey: ["lineups", id],
    queryFn: async () => (await readAnswer(`${path}/lineups`, LineupAnswer)).data,
    retry: retryUnlessRefused,
  });
  const before = useMarketsBeforeEnd(event.data);
  useEffect(() => {
    if (event.data) store.seed(event.data, lineups.data ?? null, before.data);
  }, [store, event.data, lineups.data, before.data]);
  useStreamInto(store, `${path}/stream`, EventStreamMessage);
  const state = useStoreValue(store.subscribe, store.now);

  if (!state.event) {
    return (
      <BoardFrame>
        <p className="py-10 text-center text-(--b-muted)">
          {event.isError
            ? "This event cannot be shown: it does not exist, or is not in your plan."
            : "Loading the event…"}
        </p>
        <BackToBoard />
      </BoardFrame>
    );
  }
  return (
    <EventBody
      id={id}
      store={store}
      state={state}
      live={state.event}
      pingSeconds={pingSeconds}
      historySeconds={historySeconds}
      final={
        before.data !== undefined
          ? "read"
          : before.isError
            ? before.error
            : before.isPending && event.data && isOver(event.data)
              ? "reading"
              : null
      }
    />
  );
}

function EventBody(props: {
  id: string;
  store: EventStore;
  state: FollowedEvent;
  live: EventState;
  pingSeconds: number;
  historySeconds: number;
  /** For an event over before the page opened: its final markets were read, are being read, or could not be. */
  final: "read" | "reading" | Error | null;
}) {
  const { id, store, state, live, historySeconds, final } = props;
  const over = state.over || isOver(live);
  const [format] = useStoredValue<OddsFormat>("board.odds-format", "decimal");
  const freshness = useFreshness(store);
  const now = useClock();
  // The history is read from where it was worth reading when the page opened; the stream extends it.
  const [from] = useState(() => historyFrom(live.kickoff, Date.now(), historySeconds));
  const idsKey = JSON.stringify(state.markets.map((market) => market.id));
  const marketIds = useMemo(() => JSON.parse(idsKey) as string[], [idsKey]);
  const histories = useMarketHistories(id, marketIds, from);
  const timeline = timelineWindow({
    kickoff: live.kickoff,
    now,
    historySeconds,
    delaySeconds: freshness.sandbox ? freshness.delaySeconds : 0,
    earliest: histories.earliest,
    ended: over ? Date.parse(live.updated_at) : null,
  });
  // Read before the stream could tell them, the final markets are as their histories end.
  const markets = useMemo(
    () =>
      final === "read"
        ? marketsAsTheyEnded(
            state.markets,
            Object.fromEntries(
              state.markets.map((m) => [m.id, mergePoints(histories.points[m.id], state.movement[m.id])]),
            ),
          )
        : state.markets,
    [final, state.markets, state.movement, histories.points],
  );

  const [moment, setMoment] = useState<number | null>(null);
  const settled = useSettled(moment, SETTLE_MS);
  const asked = moment === null ? null : settled;
  const past = usePastRow(id, live.sport, asked);
  const row = moment === null ? undefined : past.data;
  const range = useRef<HTMLInputElement>(null);
  const backToLive = () => {
    setMoment(null);
    range.current?.focus();
  };

  const shown = moment === null ? live : (row?.event ?? null);
  // Charts move every ten seconds, not every second: each redraw costs more than a price cell.
  const until = Math.ceil(timeline.end / 10) * 10;
  return (
    <BoardFrame>
      <BackToBoard />
      <div className="mt-3 flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0">
          <p className="text-sm text-(--b-muted)">
            {SPORT_LABELS[live.sport]} · {live.competition}
          </p>
          <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">
            {live.home} v {live.away}
          </h1>
        </div>
        <StatusChip store={store} pingSeconds={props.pingSeconds} past={moment} />
      </div>

      <TimelineScrubber
        window={timeline}
        moment={moment}
        onMoment={setMoment}
        historySeconds={historySeconds}
        waiting={!histories.settled}
        over={over}
        inputRef={range}
      />
      {moment !== null ? <PastBanner moment={moment} row={row} error={past.error} onLive={backToLive} /> : null}
      {shown ? <ScoreCard event={shown} over={moment === null && over} past={moment !== null} /> : null}

      <div className="mt-6 grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-6">
          {moment === null ? (
            <MarketList
              markets={markets}
              store={store}
              format={format}
              moment={null}
              empty={emptyMarkets(final, over)}
            />
          ) : row ? (
            <MarketList markets={row.markets} format={format} moment={row.moment} />
          ) : null}
          <LineMovement
            markets={markets}
            histories={histories}
            live={state.movement}
            from={chartFrom(timeline, histories.earliest)}
            until={until}
            moment={moment === null ? null : (row?.moment ?? null)}
            format={format}
          />
        </div>
        <div className="min-w-0 space-y-6">
          <WhatChanged timeline={state.timeline} format={format} />
          {shown ? <Statistics event={shown} /> : null}
          <LineupsPanel lineups={state.lineups} event={live} />
        </div>
      </div>
    </BoardFrame>
  );
}

/** What the markets list says when it has none to show. */
function emptyMarkets(final: "read" | "reading" | Error | null, over: boolean): string {
  if (final === "reading") return "Reading the markets as the event ended…";
  if (final instanceof ReadError && final.problem?.code === "retention_exceeded") {
    return "This event ended before the history kept begins: its markets can no longer be shown.";
  }
  if (final instanceof Error) return "The markets as the event ended could not be read.";
  return over ? "No market was offered on this event while it was in play." : "No market is offered on this event.";
}
