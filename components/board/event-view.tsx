"use client";

import "./zod-jitless";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState, useSyncExternalStore } from "react";
import type { z } from "zod";
import { EventAnswer, LineupAnswer } from "@/lib/api/schemas";
import { EventStreamMessage } from "@/lib/api/stream-schemas";
import { EventStore, type EventState, type Lineups } from "./event-store";
import { useStoredValue, useStreamInto } from "./hooks";
import type { OddsFormat } from "./odds-format";
import { BoardFrame, MarketPrices, StatusChip, ThemeSwitch } from "./parts";
import { SPORT_LABELS } from "./sports";

// One event followed through its own stream until it is over: score, clock and period, statistics,
// lineups, every market, and what changed.

class ReadError extends Error {
  readonly status: number;
  constructor(path: string, status: number) {
    super(`GET ${path} answered ${status}`);
    this.status = status;
  }
}

async function fetchData<T>(path: string, answer: z.ZodType<{ data: T }>): Promise<T> {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new ReadError(path, response.status);
  return answer.parse(await response.json()).data;
}

/** Tries a failed read again, twice, unless asking again cannot help (a 4xx but a rate limit's 429). */
function retryUnlessRefused(failures: number, error: Error): boolean {
  const final = error instanceof ReadError && error.status >= 400 && error.status < 500 && error.status !== 429;
  return failures < 2 && !final;
}

export function EventView({ id, pingSeconds }: { id: string; pingSeconds: number }) {
  const path = `/api/v1/events/${encodeURIComponent(id)}`;
  const [store] = useState(() => new EventStore());
  const event = useQuery({
    queryKey: ["event", id],
    queryFn: () => fetchData(path, EventAnswer),
    retry: retryUnlessRefused,
  });
  const lineups = useQuery({
    queryKey: ["lineups", id],
    queryFn: () => fetchData(`${path}/lineups`, LineupAnswer),
    retry: retryUnlessRefused,
  });
  useEffect(() => {
    if (event.data) store.seed(event.data, lineups.data ?? null);
  }, [store, event.data, lineups.data]);
  useStreamInto(store, `${path}/stream`, EventStreamMessage);
  const state = useSyncExternalStore(store.subscribe, store.now, store.now);
  const [format] = useStoredValue<OddsFormat>("board.odds-format", "decimal");

  const shown = state.event;
  if (!shown) {
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
  const over = state.over || shown.status === "finished" || shown.status === "cancelled";
  return (
    <BoardFrame>
      <BackToBoard />
      <div className="mt-3 flex flex-wrap items-start justify-between gap-4">
        <div>
          <p className="text-sm text-(--b-muted)">
            {SPORT_LABELS[shown.sport]} · {shown.competition}
          </p>
          <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">
            {shown.home} v {shown.away}
          </h1>
        </div>
        <div className="flex flex-col items-end gap-2">
          <StatusChip store={store} pingSeconds={pingSeconds} />
          <ThemeSwitch />
        </div>
      </div>

      <section aria-label="Score" className="mt-4 rounded-lg border border-(--b-line) bg-(--b-cell) p-4">
        <p
          data-testid="event-score"
          aria-live="polite"
          aria-atomic="true"
          className="text-center text-4xl font-bold tabular-nums"
        >
          <span className="sr-only">
            {shown.home} {shown.score.home}, {shown.away} {shown.score.away}
          </span>
          <span aria-hidden="true">
            {shown.score.home} – {shown.score.away}
          </span>
        </p>
        <p data-testid="event-state" className="mt-1 text-center text-sm text-(--b-muted)">
          {over ? (
            <strong className="text-(--b-fg)">{shown.status === "cancelled" ? "Cancelled" : "Finished"}</strong>
          ) : (
            [shown.status === "suspended" ? "Suspended" : "Live", shown.period, shown.clock].filter(Boolean).join(" · ")
          )}
        </p>
      </section>

      <div className="mt-6 grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section aria-labelledby="markets-title">
          <h2 id="markets-title" className="mb-2 text-lg font-semibold">
            Markets
          </h2>
          {state.markets.length === 0 ? (
            <p className="text-sm text-(--b-muted)">No market is offered on this event.</p>
          ) : (
            <ul className="space-y-3">
              {state.markets.map((market) => (
                <li key={market.id} data-testid="event-market" data-status={market.status}>
                  <p className="mb-1 flex items-baseline justify-between text-sm">
                    <span className="font-semibold">{market.name}</span>
                    <span className="text-xs text-(--b-muted)">
                      {market.status === "open" ? "" : market.status === "settled" ? "Settled" : "Suspended"}
                    </span>
                  </p>
                  <MarketPrices market={market} store={store} format={format} />
                </li>
              ))}
            </ul>
          )}
        </section>

        <div className="space-y-6">
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title" className="mb-2 text-lg font-semibold">
              What changed
            </h2>
            {state.timeline.length === 0 ? (
              <p className="text-sm text-(--b-muted)">Nothing yet since you opened the page.</p>
            ) : (
              <ol data-testid="timeline" className="space-y-1 text-sm">
                {state.timeline.map((entry) => (
                  <li key={entry.id} className="flex gap-2">
                    <time dateTime={entry.at} className="shrink-0 tabular-nums text-(--b-muted)">
                      {new Date(entry.at).toLocaleTimeString([], {
                        hour: "2-digit",
                        minute: "2-digit",
                        second: "2-digit",
                      })}
                    </time>
                    <span>{entry.text}</span>
                  </li>
                ))}
              </ol>
            )}
          </section>
          <Statistics event={shown} />
          <LineupsPanel lineups={state.lineups} event={shown} />
        </div>
      </div>
    </BoardFrame>
  );
}

function BackToBoard() {
  return (
    <Link href="/board" className="text-sm text-(--b-accent) underline underline-offset-4">
      ← Live board
    </Link>
  );
}

/** Each statistic as a pair of bars, the home side's share against the away side's. */
function Statistics({ event }: { event: EventState }) {
  if (event.stats.length === 0) return null;
  return (
    <section aria-labelledby="stats-title">
      <h2 id="stats-title" className="mb-2 text-lg font-semibold">
        Statistics
      </h2>
      <dl className="space-y-2 text-sm">
        {event.stats.map((stat) => {
          const total = Math.abs(stat.home) + Math.abs(stat.away);
          const homeShare = total === 0 ? 50 : (Math.abs(stat.home) / total) * 100;
          return (
            <div key={stat.label}>
              <dt className="flex justify-between">
                <span className="tabular-nums">{stat.home}</span>
                <span className="text-(--b-muted)">{stat.label}</span>
                <span className="tabular-nums">{stat.away}</span>
              </dt>
              <dd className="mt-0.5 flex h-1.5 gap-0.5" aria-hidden="true">
                <span className="rounded-l bg-(--b-accent)" style={{ width: `${homeShare}%` }} />
                <span className="flex-1 rounded-r bg-(--b-muted)" />
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}

function LineupsPanel({ lineups, event }: { lineups: Lineups | null; event: EventState }) {
  const published = lineups && (lineups.home.length > 0 || lineups.away.length > 0);
  return (
    <section aria-labelledby="lineups-title">
      <h2 id="lineups-title" className="mb-2 text-lg font-semibold">
        Lineups
      </h2>
      {!published ? (
        <p className="text-sm text-(--b-muted)">Not published yet.</p>
      ) : (
        <div className="grid grid-cols-2 gap-4 text-sm">
          {(["home", "away"] as const).map((side) => (
            <div key={side}>
              <h3 className="mb-1 font-semibold">{event[side]}</h3>
              <ul className="space-y-0.5">
                {lineups[side].map((player) => (
                  <li key={`${player.number}-${player.name}`} className="flex gap-2">
                    <span className="w-6 text-right tabular-nums text-(--b-muted)">{player.number}</span>
                    <span className="min-w-0 truncate">{player.name}</span>
                    <span className="text-xs text-(--b-muted)">{player.position}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
