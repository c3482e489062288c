"use client";

import "./zod-jitless";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { EventAnswer, LineupAnswer } from "@/lib/api/schemas";
import { EventStreamMessage } from "@/lib/api/stream-schemas";
import { BackToBoard, LineupsPanel, MarketList, PastBanner, ScoreCard, Statistics, WhatChanged } from "./event-parts";
import { readAnswer, retryUnlessRefused, useMarketHistories, usePastRow } from "./event-reads";
import { EventStore, type EventState, type FollowedEvent } from "./event-store";
import { useClock, useFreshness, useSettled, useStoredValue, useStoreValue, useStreamInto } from "./hooks";
import { LineMovement } from "./line-movement";
import type { OddsFormat } from "./odds-format";
import { BoardFrame, StatusChip, ThemeSwitch } from "./parts";
import { chartFrom, historyFrom, timelineWindow } from "./past-moment";
import { SPORT_LABELS } from "./sports";
import { TimelineScrubber } from "./timeline-scrubber";

// One event followed through its own stream until it is over: score, clock and period, statistics,
// lineups, every market with its line movement, and what changed; and, on the timeline, the
// event's board row as it was at any moment of the history kept, while the stream goes on.

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
  useEffect(() => {
    if (event.data) store.seed(event.data, lineups.data ?? null);
  }, [store, event.data, lineups.data]);
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
}) {
  const { id, store, state, live, historySeconds } = props;
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
  });

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
      <div className="mt-3 flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-(--b-muted)">
            {SPORT_LABELS[live.sport]} · {live.competition}
          </p>
          <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">
            {live.home} v {live.away}
          </h1>
        </div>
        <div className="flex flex-col items-end gap-2">
          <StatusChip store={store} pingSeconds={props.pingSeconds} />
          <ThemeSwitch />
        </div>
      </div>

      <TimelineScrubber
        window={timeline}
        moment={moment}
        onMoment={setMoment}
        historySeconds={historySeconds}
        waiting={!histories.settled}
        inputRef={range}
      />
      {moment !== null ? <PastBanner moment={moment} row={row} error={past.error} onLive={backToLive} /> : null}
      {shown ? <ScoreCard event={shown} over={moment === null && state.over} past={moment !== null} /> : null}

      <div className="mt-6 grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-6">
          {moment === null ? (
            <MarketList markets={state.markets} store={store} format={format} moment={null} />
          ) : row ? (
            <MarketList markets={row.markets} format={format} moment={row.moment} />
          ) : null}
          <LineMovement
            markets={state.markets}
            histories={histories}
            live={state.movement}
            from={chartFrom(timeline, histories.earliest)}
            until={until}
            moment={moment === null ? null : (row?.moment ?? null)}
            format={format}
          />
        </div>
        <div className="min-w-0 space-y-6">
          <WhatChanged timeline={state.timeline} />
          {shown ? <Statistics event={shown} /> : null}
          <LineupsPanel lineups={state.lineups} event={live} />
        </div>
      </div>
    </BoardFrame>
  );
}
