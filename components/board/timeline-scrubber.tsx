"use client";

import type { Ref } from "react";
import { useShownZone } from "@/components/display-settings";
import { historySpan, momentOf, rangeValue, zonedClock, type TimelineWindow } from "./past-moment";

// The timeline: a range over the event's window, whose end is the live view (for an event that is
// over, its final state). Arrow keys move a second, Page Up and Down a tenth of the window, Home to
// its start, End and Escape back to live.

type Props = {
  window: TimelineWindow;
  moment: number | null;
  onMoment(moment: number | null): void;
  historySeconds: number;
  /** Not ready: the window's start is not known yet. */
  waiting: boolean;
  /** The event is over: the window's end is its final state, not the live view. */
  over: boolean;
  inputRef?: Ref<HTMLInputElement>;
};

export function TimelineScrubber({ window, moment, onMoment, historySeconds, waiting, over, inputRef }: Props) {
  const zone = useShownZone();
  const empty = window.end - window.start < 1;
  const end = over ? "Final" : "Live";
  const chosen = moment === null ? end : `as of ${zonedClock(moment, zone)}`;
  return (
    <section aria-labelledby="rewind-title" className="mt-4 rounded-lg border border-(--b-line) px-4 py-3">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4">
        <h2 id="rewind-title" className="text-lg font-semibold">
          Timeline
        </h2>
        <output
          htmlFor="rewind"
          data-testid="moment-chosen"
          className={`text-sm font-semibold tabular-nums ${moment === null ? "text-(--b-up)" : "text-(--b-warn)"}`}
        >
          {chosen}
        </output>
      </div>
      <label htmlFor="rewind" className="mt-1 block text-sm text-(--b-muted)">
        Moment shown: move back to see the event as it was
      </label>
      <input
        id="rewind"
        ref={inputRef}
        type="range"
        min={window.start}
        max={window.end}
        step={1}
        value={rangeValue(moment, window)}
        disabled={waiting || empty}
        aria-valuetext={moment === null ? end : `${zonedClock(moment, zone)}, the past`}
        onChange={(change) => onMoment(momentOf(Number(change.target.value), window))}
        onKeyDown={(key) => {
          if (key.key === "Escape" && moment !== null) onMoment(null);
        }}
        className="mt-2 block w-full accent-(--b-accent) disabled:opacity-50"
      />
      <div className="mt-1 flex justify-between text-xs tabular-nums text-(--b-muted)" aria-hidden="true">
        <span>{empty ? "" : zonedClock(window.start, zone)}</span>
        <span>{over ? `Final, ${zonedClock(window.end, zone)}` : "Live"}</span>
      </div>
      {waiting ? (
        <p className="mt-1 text-xs text-(--b-muted)">Reading the history…</p>
      ) : empty ? (
        <p className="mt-1 text-xs text-(--b-muted)">Nothing to go back to yet.</p>
      ) : window.limited ? (
        <p data-testid="history-limit" className="mt-1 text-xs text-(--b-muted)">
          The history kept reaches back {historySpan(historySeconds)}: earlier moments of the event cannot be shown.
        </p>
      ) : null}
    </section>
  );
}
