"use client";

import { memo, useLayoutEffect } from "react";
import { useShownZone } from "@/components/display-settings";
import { useAgeTicker, useClock, useFreshness } from "./hooks";
import { zonedClock } from "./past-moment";
import { fade } from "./flash-fade";
import { formatPrice, type OddsFormat } from "./odds-format";
import type { Flash, Market, StreamStore } from "./stream-store";

// The pieces the board and the event page share: how fresh the data is, a price cell, a setting.

/** Seconds without anything from the stream (a ping comes every `pingSeconds`) before it is stale. */
const SILENCE_GRACE_SECONDS = 5;
const RESYNC_NOTICE_MS = 5_000;

type ChipState = "live" | "reconnecting" | "waiting" | "stale" | "delayed" | "ended" | "connecting" | "final" | "past";

const CHIP_STYLE: Record<ChipState, string> = {
  live: "bg-(--b-up-bg) text-(--b-up) border-(--b-up)",
  delayed: "bg-(--b-warn-bg) text-(--b-warn) border-(--b-warn)",
  reconnecting: "bg-(--b-warn-bg) text-(--b-warn) border-(--b-warn)",
  waiting: "bg-(--b-warn-bg) text-(--b-warn) border-(--b-warn)",
  stale: "bg-(--b-down-bg) text-(--b-down) border-(--b-down)",
  ended: "bg-(--b-down-bg) text-(--b-down) border-(--b-down)",
  connecting: "bg-(--b-cell) text-(--b-muted) border-(--b-line)",
  final: "bg-(--b-cell) text-(--b-fg) border-(--b-line)",
  past: "bg-(--b-warn-bg) text-(--b-warn) border-(--b-warn) border-dashed",
};

/**
 * Live, Reconnecting, Stale or Delayed: always visible, so nobody mistakes old prices for new; Past
 * while the page shows a moment of the past (`past`, s), whatever the stream does meanwhile.
 */
export function StatusChip({
  store,
  pingSeconds,
  past = null,
}: {
  store: StreamStore;
  pingSeconds: number;
  past?: number | null;
}) {
  const freshness = useFreshness(store);
  const now = useClock();
  const zone = useShownZone();
  const silent =
    freshness.connection === "live" &&
    freshness.heardAt !== null &&
    now > 0 &&
    now - freshness.heardAt > (pingSeconds + SILENCE_GRACE_SECONDS) * 1_000;
  let state: ChipState;
  let label: string;
  if (past !== null) [state, label] = ["past", `Past: ${zonedClock(past, zone)}`];
  else if (freshness.ended) [state, label] = ["ended", "Stopped"];
  else if (freshness.connection === "ended") [state, label] = ["final", "Final"];
  else if (freshness.refused) [state, label] = ["waiting", "Waiting"];
  else if (freshness.connection === "reconnecting") [state, label] = ["reconnecting", "Reconnecting"];
  else if (freshness.connection === "connecting") [state, label] = ["connecting", "Connecting"];
  else if (freshness.stale || silent) [state, label] = ["stale", "Stale"];
  else if (freshness.sandbox) [state, label] = ["delayed", `Delayed ${freshness.delaySeconds} s`];
  else [state, label] = ["live", "Live"];
  const resynced = freshness.resyncedAt !== null && now - freshness.resyncedAt < RESYNC_NOTICE_MS;
  return (
    <div className="flex flex-wrap items-center gap-2" role="status" aria-live="polite">
      <span
        data-testid="status-chip"
        data-state={state}
        className={`inline-flex items-center gap-1.5 rounded-full border px-2.5 py-0.5 text-sm font-semibold ${CHIP_STYLE[state]}`}
      >
        <span
          aria-hidden="true"
          className={`size-2 rounded-full bg-current ${state === "live" ? "animate-pulse" : ""}`}
        />
        {label}
      </span>
      {state === "stale" ? (
        <a data-testid="status-link" href="/status" className="text-sm underline">
          Service status
        </a>
      ) : null}
      {freshness.sandbox && state !== "delayed" ? (
        <span className="text-sm text-(--b-muted)">sandbox data, {freshness.delaySeconds} s behind</span>
      ) : null}
      {resynced ? (
        <span data-testid="resync-notice" className="text-sm text-(--b-muted)">
          Caught up: the board was replaced with the latest state.
        </span>
      ) : null}
      {freshness.refused && !freshness.ended ? (
        <span data-testid="stream-refused" className="text-sm text-(--b-warn)">
          {freshness.refused.policies.includes("streams")
            ? "Too many live views open: close one. This view goes live by itself once another closes."
            : freshness.refused.detail}
        </span>
      ) : null}
      {freshness.ended ? (
        <span className="text-sm text-(--b-down)">
          {freshness.ended.code === "session_expired" ? (
            <>
              Your session ended.{" "}
              <a href="/console/sign-in" className="underline">
                Sign in again
              </a>
              .
            </>
          ) : (
            freshness.ended.detail
          )}
        </span>
      ) : null}
    </div>
  );
}

/** The text of an age: empty while it is under `quietSeconds` (fresh rows stay quiet). */
export function ageText(now: number, at: number, quietSeconds = 5): string {
  const seconds = Math.max(0, Math.floor((now - at) / 1_000));
  if (seconds < quietSeconds) return "";
  return `${seconds < 60 ? `${seconds}s` : seconds < 3_600 ? `${Math.floor(seconds / 60)}m` : "1h+"} ago`;
}

/**
 * How long ago, shown only when it is more than a few seconds. The text is written by one ticker
 * for every age on the page (`useAgeTicker`), not by rendering: re-rendering every row's age each
 * second was a task of its own on a board of hundreds of rows.
 */
export function Age({ at, quietSeconds = 5 }: { at: number; quietSeconds?: number }) {
  const ref = useAgeTicker(at, quietSeconds, ageText);
  return (
    <span
      ref={ref}
      hidden
      data-testid="row-age"
      className="text-xs tabular-nums text-(--b-muted)"
      title="Time since this row last changed"
    />
  );
}

/**
 * How a settled outcome reads: by its word, an icon and a cell of its own, not by colour alone. Won
 * stands out, lost recedes (struck through, dashed), void (the stake returned) is marked apart.
 */
const SETTLED: Partial<
  Record<Market["outcomes"][number]["status"], { label: string; cell: string; name: string; icon: React.ReactNode }>
> = {
  won: {
    label: "Won",
    cell: "border-2 border-(--b-up) bg-(--b-up-bg) text-(--b-up) font-bold",
    name: "text-(--b-fg)",
    icon: <path d="M3 8.5 6.5 12 13 4.5" />,
  },
  lost: {
    label: "Lost",
    cell: "border border-dashed border-(--b-muted) bg-(--b-bg) text-(--b-muted)",
    name: "line-through",
    icon: <path d="M4 4l8 8M12 4l-8 8" />,
  },
  void: {
    label: "Void",
    cell: "border border-dotted border-(--b-warn) bg-(--b-warn-bg) text-(--b-warn) italic",
    name: "",
    icon: <path d="M3 8a5 5 0 1 1 1.5 3.5M3 12V8.5h3.5" />,
  },
};

type PriceProps = {
  market: Market;
  outcomeIndex: number;
  format: OddsFormat;
  flash: Flash | undefined;
  label?: string;
};

/**
 * One outcome's price; flashes green up or red down when it moves, locked while suspended. Its size
 * is the grid's and its own height, so it is contained: a new price lays out the cell, not the page.
 */
export const PriceCell = memo(function PriceCell({ market, outcomeIndex, format, flash, label }: PriceProps) {
  const outcome = market.outcomes[outcomeIndex];
  if (!outcome) return <span className="block h-11 rounded-md bg-(--b-cell)" aria-hidden="true" />;
  const name = label ?? outcome.name;
  const locked = market.status !== "open" || outcome.status !== "active";
  if (locked) {
    // A settled outcome says how it settled; void returns the stake (abandoned, or a tie in a two-way market).
    const settled = SETTLED[outcome.status];
    return (
      <span
        data-testid="price"
        data-locked="true"
        aria-label={`${name}: ${settled ? outcome.status : "suspended"}`}
        title={outcome.status === "void" ? "Void: the stake is returned" : undefined}
        data-outcome-status={outcome.status}
        className={`flex h-11 min-w-0 flex-col items-center justify-center rounded-md [contain:strict] ${settled?.cell ?? "border border-(--b-line) bg-(--b-cell) text-(--b-muted)"}`}
      >
        <span className={`max-w-full truncate px-1 text-[0.7rem] leading-tight ${settled?.name ?? ""}`}>{name}</span>
        {settled ? (
          <span className="flex items-center gap-1 text-sm">
            <Icon strokeWidth={2}>{settled.icon}</Icon>
            {settled.label}
          </span>
        ) : (
          <span className="text-sm font-semibold">
            <LockIcon />
          </span>
        )}
      </span>
    );
  }
  return (
    <span
      data-testid="price"
      data-flash={flash?.direction}
      aria-label={`${name}: ${formatPrice(outcome.price, format)}`}
      className="relative isolate flex h-11 min-w-0 flex-col items-center justify-center overflow-hidden rounded-md border border-(--b-line) bg-(--b-cell) [contain:strict]"
    >
      {flash ? (
        // Behind the text (the cell is its own stacking context), so the text needs no layer of its own.
        <span
          key={flash.sequence}
          ref={(element) => {
            if (element) fade(element, flash.at);
          }}
          aria-hidden="true"
          className={`absolute inset-0 -z-10 text-right text-xs ${flash.direction === "up" ? "flash-up" : "flash-down"}`}
        >
          {flash.direction === "up" ? "▲ " : "▼ "}
        </span>
      ) : null}
      <span className="max-w-full truncate px-1 text-[0.7rem] leading-tight text-(--b-muted)">{name}</span>
      <span className="text-sm font-semibold tabular-nums">{formatPrice(outcome.price, format)}</span>
    </span>
  );
});

/** A small line drawing in the text's colour, not an emoji: not every system has a font with them. */
function Icon({ strokeWidth, children }: { strokeWidth: number; children: React.ReactNode }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 16 16"
      className="size-3.5"
      fill="none"
      stroke="currentColor"
      strokeWidth={strokeWidth}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

/** A padlock: the outcome is not on offer. */
function LockIcon() {
  return (
    <Icon strokeWidth={1.6}>
      <rect x="3" y="7" width="10" height="7" rx="1.5" />
      <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
    </Icon>
  );
}

/** A labelled drop-down of the board's settings: `options` as [value, label] pairs. */
export function Choice<T extends string>(props: {
  label: string;
  value: T;
  options: readonly (readonly [T, string])[];
  onChange(value: T): void;
}) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <span>{props.label}</span>
      <select
        value={props.value}
        onChange={(change) => props.onChange(change.target.value as T)}
        className="rounded-md border border-(--b-line) bg-(--b-bg) px-2 py-1 text-(--b-fg)"
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A market's outcomes as price cells, side by side (three to a row at most). */
export function MarketPrices(props: {
  market: Market;
  /** The live store whose price moves flash; none for a state of the past. */
  store?: StreamStore;
  format: OddsFormat;
  label?: (name: string, index: number) => string;
  type?: string;
}) {
  const { market, store, format } = props;
  const columns = Math.min(market.outcomes.length, 3);
  return (
    <div className={`grid gap-1 ${columns === 3 ? "grid-cols-3" : "grid-cols-2"}`} data-market-type={props.type}>
      {market.outcomes.map((outcome, index) => (
        <PriceCell
          key={outcome.id}
          market={market}
          outcomeIndex={index}
          format={format}
          flash={store?.flash(market.id, outcome.id)}
          label={props.label?.(outcome.name, index)}
        />
      ))}
    </div>
  );
}

/** The board's pages' root: wide (the page around it too), in the theme every page follows. */
export function BoardFrame({ children }: { children: React.ReactNode }) {
  useLayoutEffect(() => {
    const root = document.documentElement;
    root.dataset.board = "";
    return () => {
      delete root.dataset.board;
    };
  }, []);
  return (
    <div data-board-frame="" className="text-(--b-fg)">
      {children}
    </div>
  );
}
