"use client";

import Link from "next/link";
import { Fragment } from "react";
import { useShownZone } from "@/components/display-settings";
import { zoneName } from "@/lib/time-display";
import type { EventState, Lineups, TimelineEntry } from "./event-store";
import { ReadError, type PastRow } from "./event-reads";
import { formatPrice, type OddsFormat } from "./odds-format";
import { MarketPrices } from "./parts";
import { clockTime, zonedClock } from "./past-moment";
import type { Market, StreamStore } from "./stream-store";

// The pieces of the event page, each showing the live state or, with a moment, a state of the past.

export function BackToBoard() {
  return (
    <Link href="/board" className="text-sm text-(--b-accent) underline underline-offset-4">
      ← Live board
    </Link>
  );
}

/** Marks what follows as the past, says which moment, and leads back to the live view. */
export function PastBanner(props: { moment: number; row: PastRow | undefined; error: Error | null; onLive(): void }) {
  const { row, moment, error } = props;
  const zone = useShownZone();
  const shown = row?.moment ?? moment;
  return (
    <div
      data-testid="past-banner"
      className="mt-4 flex flex-wrap items-center justify-between gap-3 rounded-lg border-2 border-dashed border-(--b-warn) bg-(--b-warn-bg) px-4 py-2 text-(--b-warn)"
    >
      <p role="status" className="text-sm">
        <strong data-testid="past-moment" className="text-base">
          As of {zonedClock(shown, zone)} — the past
        </strong>
        {row ? <span className="ml-2 tabular-nums">revision {row.revision}</span> : null}
        {row && !row.onBoard ? <span className="block">The event was not on the board at that moment.</span> : null}
        {row && row.moment !== moment && !error ? (
          <span className="block">Reading the board as of {zonedClock(moment, zone)}…</span>
        ) : null}
        {!row && !error ? <span className="block">Reading the board as of then…</span> : null}
        {error ? <span className="block">{pastProblem(error)}</span> : null}
      </p>
      <button
        type="button"
        onClick={props.onLive}
        className="rounded-md border border-(--b-warn) bg-(--b-bg) px-3 py-1.5 text-sm font-semibold text-(--b-fg)"
      >
        Back to live
      </button>
    </div>
  );
}

function pastProblem(error: Error): string {
  if (!(error instanceof ReadError)) return "The board as of then could not be read.";
  if (error.problem?.code === "retention_exceeded") return "That moment is older than the history kept.";
  return error.problem?.detail ?? `The board as of then could not be read (${error.status}).`;
}

const STATUS_LABELS: Record<EventState["status"], string> = {
  upcoming: "Not started",
  live: "Live",
  suspended: "Suspended",
  postponed: "Postponed",
  finished: "Finished",
  cancelled: "Cancelled",
};

/**
 * The two sides with their scores, clock and period; the live score is announced when it changes,
 * a past one is not.
 */
export function ScoreCard({ event, over, past }: { event: EventState; over: boolean; past: boolean }) {
  return (
    <section
      aria-label={past ? "Score, in the past" : "Score"}
      data-past={past || undefined}
      className={`mt-4 rounded-lg border bg-(--b-cell) p-4 ${past ? "border-2 border-dashed border-(--b-warn)" : "border-(--b-line)"}`}
    >
      <p
        data-testid="event-score"
        aria-live={past ? undefined : "polite"}
        aria-atomic={past ? undefined : "true"}
        className="grid grid-cols-[minmax(0,1fr)_auto_minmax(0,1fr)] items-center gap-x-3 sm:gap-x-5"
      >
        <span className="sr-only">
          {event.home} {event.score.home}, {event.away} {event.score.away}
        </span>
        <span
          aria-hidden="true"
          data-testid="score-home-name"
          className="text-right text-base font-semibold break-words sm:text-xl"
        >
          {event.home}
        </span>
        <span aria-hidden="true" className="text-4xl font-bold whitespace-nowrap tabular-nums">
          {event.score.home} – {event.score.away}
        </span>
        <span
          aria-hidden="true"
          data-testid="score-away-name"
          className="text-left text-base font-semibold break-words sm:text-xl"
        >
          {event.away}
        </span>
      </p>
      <p data-testid="event-state" className="mt-1 text-center text-sm text-(--b-muted)">
        {over || event.status === "finished" || event.status === "cancelled" ? (
          <strong className="text-(--b-fg)">{event.status === "cancelled" ? "Cancelled" : "Finished"}</strong>
        ) : (
          [STATUS_LABELS[event.status], event.period, event.clock].filter(Boolean).join(" · ")
        )}
      </p>
    </section>
  );
}

/** Every market of the event with its prices; a past state's do not flash. */
export function MarketList(props: {
  markets: readonly Market[];
  store?: StreamStore;
  format: OddsFormat;
  moment: number | null;
  /** What to say when there is no market to show. */
  empty?: string;
}) {
  const { markets, moment } = props;
  const zone = useShownZone();
  return (
    <section aria-labelledby="markets-title" data-past={moment !== null || undefined}>
      <h2 id="markets-title" className="mb-2 text-lg font-semibold">
        {moment === null ? "Markets" : `Markets as of ${zonedClock(moment, zone)}`}
      </h2>
      {markets.length === 0 ? (
        <p data-testid="markets-empty" className="text-sm text-(--b-muted)">
          {moment === null
            ? (props.empty ?? "No market is offered on this event.")
            : "No market was on the board at that moment."}
        </p>
      ) : (
        <ul className="space-y-3">
          {markets.map((market) => (
            <li key={market.id} data-testid="event-market" data-status={market.status}>
              <p className="mb-1 flex items-baseline justify-between text-sm">
                <span className="font-semibold">{market.name}</span>
                <span className="text-xs text-(--b-muted)">
                  {market.status === "open" ? "" : market.status === "settled" ? "Settled" : "Suspended"}
                </span>
              </p>
              <MarketPrices market={market} store={props.store} format={props.format} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Each statistic as a pair of bars, the home side's share against the away side's. */
export function Statistics({ event }: { event: EventState }) {
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

export function LineupsPanel({ lineups, event }: { lineups: Lineups | null; event: EventState }) {
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

/** What changed since the page opened, newest first: scores, status, suspensions and price moves. */
export function WhatChanged({ timeline, format }: { timeline: readonly TimelineEntry[]; format: OddsFormat }) {
  const zone = useShownZone();
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title" className="mb-2 text-lg font-semibold">
        What changed
      </h2>
      {timeline.length === 0 ? (
        <p className="text-sm text-(--b-muted)">Nothing yet since you opened the page.</p>
      ) : (
        <>
          <p className="mb-1 text-xs text-(--b-muted)">Times in {zoneName(zone)}.</p>
          <ol data-testid="timeline" className="space-y-1 text-sm">
            {timeline.map((entry) => {
              const at = Math.floor(Date.parse(entry.at) / 1_000);
              return (
                <li key={entry.id} className="flex gap-2" data-kind={entry.moves ? "price" : "event"}>
                  <time
                    dateTime={entry.at}
                    title={zonedClock(at, zone === "UTC" ? undefined : "UTC")}
                    className="shrink-0 tabular-nums text-(--b-muted)"
                  >
                    {clockTime(at, zone)}
                  </time>
                  {entry.moves ? (
                    <PriceMoves market={entry.text} moves={entry.moves} format={format} />
                  ) : (
                    <span>{entry.text}</span>
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}

/** "Match result: Arsenal 12.00 → 12.50 ▲": each move with its direction, as an arrow and in words. */
function PriceMoves({
  market,
  moves,
  format,
}: {
  market: string;
  moves: TimelineEntry["moves"] & object;
  format: OddsFormat;
}) {
  return (
    <span className="min-w-0 break-words">
      {market}:{" "}
      {moves.map((move, index) => {
        const up = move.to > move.from;
        return (
          <Fragment key={move.outcome}>
            {index > 0 ? ", " : ""}
            {move.outcome}{" "}
            <span className="whitespace-nowrap">
              {formatPrice(move.from, format)} → {formatPrice(move.to, format)}{" "}
              <span aria-hidden="true" className={up ? "text-(--b-up)" : "text-(--b-down)"}>
                {up ? "▲" : "▼"}
              </span>
              <span className="sr-only">{up ? " (up)" : " (down)"}</span>
            </span>
          </Fragment>
        );
      })}
    </span>
  );
}
