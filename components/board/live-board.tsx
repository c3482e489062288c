"use client";

import "./zod-jitless";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { memo, useCallback, useEffect, useMemo, useState } from "react";
import type { MemberCoverage } from "@/lib/api/credentials/member-entitlement";
import { OddsAnswer } from "@/lib/api/endpoints/schemas";
import { BoardStreamMessage } from "@/lib/api/endpoints/stream-schemas";
import { BoardStore, type BoardRow } from "./board-store";
import { usePaintReport, useStoredValue, useStoreValue, useStreamInto } from "./hooks";
import { ODDS_FORMAT_LABELS, ODDS_FORMATS, type OddsFormat } from "./odds-format";
import { Age, BoardFrame, Choice, MarketPrices, StatusChip } from "./parts";
import { moveSport, readSportOrder, sportOrder, sportsByActivity } from "./sport-order";
import { SPORT_LABELS, type SportCode } from "./sports";

// The live odds board: every event in play, grouped by sport and competition, kept current by the
// board stream; the sports where most is happening first, unless the viewer ordered them. Filters
// live in the URL; the odds format, pinned events and the viewer's order of sports in the browser.

const SPORTS = Object.keys(SPORT_LABELS) as SportCode[];

/** The columns of the board, in order; the first is the only one a phone shows. */
const COLUMNS = [
  { type: "match_winner", label: "Match winner" },
  { type: "handicap", label: "Handicap" },
  { type: "total", label: "Total" },
] as const;
type ColumnType = (typeof COLUMNS)[number]["type"];

async function fetchOdds() {
  const response = await fetch("/api/v1/odds", { cache: "no-store" });
  if (!response.ok) throw new Error(`GET /api/v1/odds answered ${response.status}`);
  return OddsAnswer.parse(await response.json());
}

export function LiveBoard({ pingSeconds, coverage }: { pingSeconds: number; coverage: MemberCoverage | null }) {
  const [store] = useState(() => new BoardStore());
  // The first state, until the stream's snapshot replaces it; a resync's snapshot needs nothing read again.
  const odds = useQuery({ queryKey: ["odds"], queryFn: fetchOdds });
  useEffect(() => {
    if (odds.data) store.seed(odds.data.data, odds.data.meta.sandbox, odds.data.meta.delay_seconds);
  }, [store, odds.data]);
  useStreamInto(store, "/api/v1/odds/stream", BoardStreamMessage);

  const filters = useFilters();
  const [format, setFormat] = useStoredValue<OddsFormat>("board.odds-format", "decimal");
  const pins = usePins();

  return (
    <BoardFrame>
      <div className="mb-4 flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">Live board</h1>
          <p className="mt-1 text-sm text-(--b-muted)">
            Every event in play with its score, clock and main markets, as the feed moves.
          </p>
        </div>
        <StatusChip store={store} pingSeconds={pingSeconds} />
        <PaintReport store={store} />
      </div>
      <form
        aria-label="Board settings"
        className="mb-4 flex flex-wrap items-center gap-x-5 gap-y-2 border-y border-(--b-line) py-3"
        onSubmit={(submit) => submit.preventDefault()}
      >
        <Choice
          label="Sport"
          value={filters.sport ?? ""}
          options={sportChoices(coverage)}
          onChange={(sport) => filters.set({ sport: (sport || null) as SportCode | null })}
        />
        <Choice
          label="Market"
          value={filters.market ?? ""}
          options={[["", "Main markets"], ...COLUMNS.map((c) => [c.type, c.label] as [string, string])]}
          onChange={(market) => filters.set({ market: (market || null) as ColumnType | null })}
        />
        <Choice
          label="Odds"
          value={format}
          options={ODDS_FORMATS.map((value) => [value, ODDS_FORMAT_LABELS[value]] as const)}
          onChange={setFormat}
        />
      </form>
      <BoardGroups
        store={store}
        sport={filters.sport}
        columns={filters.market ? COLUMNS.filter((c) => c.type === filters.market) : COLUMNS}
        format={format}
        pins={pins}
        pending={odds.isPending}
        coverage={coverage}
      />
    </BoardFrame>
  );
}

/** The sport filter's choices: the sports the organisation reads first, then the others, marked. */
function sportChoices(coverage: MemberCoverage | null): [string, string][] {
  const covered = coverage ? SPORTS.filter((sport) => coverage.sports.includes(sport)) : SPORTS;
  const others = SPORTS.filter((sport) => !covered.includes(sport));
  return [
    ["", "All sports"],
    ...covered.map((sport): [string, string] => [sport, SPORT_LABELS[sport]]),
    ...others.map((sport): [string, string] => [sport, `${SPORT_LABELS[sport]} (not covered)`]),
  ];
}

/** Why a sport the organisation does not read shows nothing, and what would show it. */
function NotCovered({ sport, coverage }: { sport: SportCode; coverage: MemberCoverage }) {
  const covered = coverage.sports.map((each) => SPORT_LABELS[each]).join(", ");
  return (
    <div data-testid="board-not-covered" className="py-10 text-center text-(--b-muted)">
      <p className="font-semibold text-(--b-fg)">{SPORT_LABELS[sport]} is not covered by your organisation.</p>
      <p className="mt-2">
        {coverage.sandbox
          ? `Without a verified licence and a plan, its members see the sandbox's view of one sport: ${covered}. `
          : `Its plan, ${coverage.planName}, covers ${covered}. `}
        A plan that includes {SPORT_LABELS[sport]} would show its events here, in real time:{" "}
        {coverage.sandbox ? (
          <>
            record your{" "}
            <Link href="/console/licence" className="text-(--b-accent) underline">
              licence
            </Link>{" "}
            and choose a{" "}
            <Link href="/console/plan" className="text-(--b-accent) underline">
              plan
            </Link>
            .
          </>
        ) : (
          <>
            compare the{" "}
            <Link href="/console/plan" className="text-(--b-accent) underline">
              plans
            </Link>
            .
          </>
        )}
      </p>
    </div>
  );
}

/** On its own, so that the reports re-render nothing else. */
function PaintReport({ store }: { store: BoardStore }) {
  usePaintReport(store);
  return null;
}

type Column = (typeof COLUMNS)[number];
type Pins = { pinned: ReadonlySet<string>; toggle(id: string): void };

/**
 * The rows under their sport and competition headings; pinned events first, in a group of their own.
 * The list of events is read here, not by the page: an event coming onto the board or leaving it
 * (several a second in a busy feed) renders the groups again, not the heading and the settings.
 */
function BoardGroups(props: {
  store: BoardStore;
  sport: SportCode | null;
  columns: readonly Column[];
  format: OddsFormat;
  pins: Pins;
  /** The first state is still being read. */
  pending: boolean;
  coverage: MemberCoverage | null;
}) {
  const { store, sport, columns, format, pins, coverage } = props;
  const ids = useStoreValue(store.subscribeList, store.ids);
  const [storedOrder, setStoredOrder] = useStoredValue<string>("board.sport-order", "");
  // Judged once, on the first state: a board that reordered itself as prices moved could not be read.
  const [activity, setActivity] = useState<SportCode[] | null>(null);
  if (activity === null && ids.length > 0) {
    setActivity(
      sportsByActivity(
        ids.flatMap((id) => store.row(id) ?? []),
        SPORTS,
      ),
    );
  }
  // Grouping reads each row's sport and competition, which do not change while it is on the board.
  const groups = useMemo(() => {
    const pinned: string[] = [];
    const bySport = new Map<string, Map<string, string[]>>();
    for (const id of ids) {
      const row = store.row(id);
      if (!row || (sport && row.event.sport !== sport)) continue;
      if (pins.pinned.has(id)) {
        pinned.push(id);
        continue;
      }
      let competitions = bySport.get(row.event.sport);
      if (!competitions) bySport.set(row.event.sport, (competitions = new Map()));
      const list = competitions.get(row.event.competition) ?? [];
      list.push(id);
      competitions.set(row.event.competition, list);
    }
    return { pinned, bySport };
  }, [ids, store, sport, pins.pinned]);
  const chosen = readSportOrder(storedOrder, SPORTS);
  const present = [...groups.bySport.keys()] as SportCode[];
  const byActivity = [
    ...(activity ?? []).filter((each) => present.includes(each)),
    ...SPORTS.filter((each) => present.includes(each) && !activity?.includes(each)),
  ];
  const order = sportOrder(chosen, byActivity);
  const move = (code: SportCode, by: -1 | 1) => setStoredOrder(moveSport(order, code, by).join(","));

  if (props.pending && ids.length === 0)
    return <p className="py-10 text-center text-(--b-muted)">Loading the events in play…</p>;
  if (sport && coverage && !coverage.sports.includes(sport)) return <NotCovered sport={sport} coverage={coverage} />;
  if (groups.pinned.length === 0 && groups.bySport.size === 0) {
    return (
      <p data-testid="board-empty" className="py-10 text-center text-(--b-muted)">
        No event is in play{sport ? ` in ${SPORT_LABELS[sport]}` : ""} right now. Events appear here when they start.
      </p>
    );
  }
  const table = (title: string, list: string[], level: "h2" | "h3") => (
    <RowGroup key={title} title={title} level={level} columns={columns}>
      {list.map((id) => (
        <Row
          key={id}
          id={id}
          store={store}
          columns={columns}
          format={format}
          pinned={pins.pinned.has(id)}
          pins={pins}
        />
      ))}
    </RowGroup>
  );
  return (
    <div className="space-y-8">
      {groups.pinned.length > 0 ? <section aria-label="Pinned">{table("Pinned", groups.pinned, "h2")}</section> : null}
      <div>
        {order.length > 1 ? (
          <p data-testid="sport-order-note" className="mb-3 text-xs text-(--b-muted)">
            {chosen
              ? "Sports in your order; move them with the arrows beside each. "
              : "Sports with the most price moves in the last minute first; move them with the arrows beside each. "}
            {chosen ? (
              <button type="button" onClick={() => setStoredOrder("")} className="text-(--b-accent) underline">
                Order by activity again
              </button>
            ) : null}
          </p>
        ) : null}
        <div className="space-y-8">
          {order.map((code, index) => (
            <section key={code} aria-labelledby={`sport-${code}`} data-testid="sport-section" data-sport={code}>
              <div className="mb-2 flex items-center gap-2">
                <h2 id={`sport-${code}`} className="text-lg font-semibold">
                  {SPORT_LABELS[code] ?? code}
                </h2>
                {order.length > 1 ? (
                  <span className="flex gap-1">
                    <MoveButton
                      label={`Move ${SPORT_LABELS[code]} up`}
                      disabled={index === 0}
                      onClick={() => move(code, -1)}
                    >
                      ↑
                    </MoveButton>
                    <MoveButton
                      label={`Move ${SPORT_LABELS[code]} down`}
                      disabled={index === order.length - 1}
                      onClick={() => move(code, 1)}
                    >
                      ↓
                    </MoveButton>
                  </span>
                ) : null}
              </div>
              <div className="space-y-4">
                {[...groups.bySport.get(code)!].map(([name, list]) => table(name, list, "h3"))}
              </div>
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}

function MoveButton(props: { label: string; disabled: boolean; onClick(): void; children: React.ReactNode }) {
  return (
    <button
      type="button"
      aria-label={props.label}
      title={props.label}
      disabled={props.disabled}
      onClick={props.onClick}
      className="inline-flex size-8 items-center justify-center rounded-md border border-(--b-line) text-sm text-(--b-fg) disabled:opacity-40"
    >
      <span aria-hidden="true">{props.children}</span>
    </button>
  );
}

function RowGroup(props: { title: string; level: "h2" | "h3"; columns: readonly Column[]; children: React.ReactNode }) {
  const Heading = props.level;
  return (
    <div>
      <Heading className="mb-1 text-sm font-semibold text-(--b-muted)">{props.title}</Heading>
      <div
        role="table"
        aria-label={props.title}
        className="rounded-lg border border-(--b-line)"
        style={{ "--columns": props.columns.length } as React.CSSProperties}
      >
        <div role="rowgroup" className="sr-only md:not-sr-only">
          <div role="row" className={`${GRID} border-b border-(--b-line) px-3 py-1 text-xs text-(--b-muted)`}>
            <span role="columnheader">Event</span>
            {props.columns.map((column, index) => (
              <span key={column.type} role="columnheader" className={index > 0 ? "hidden md:block" : ""}>
                {column.label}
              </span>
            ))}
          </div>
        </div>
        <div role="rowgroup">{props.children}</div>
      </div>
    </div>
  );
}

// One column on a phone (the event above its main market); event and markets side by side on wider screens.
const GRID =
  "grid grid-cols-1 gap-2 md:grid-cols-[minmax(14rem,1.3fr)_repeat(var(--columns),minmax(0,1fr))] md:items-center";

type RowProps = {
  id: string;
  store: BoardStore;
  columns: readonly Column[];
  format: OddsFormat;
  pinned: boolean;
  pins: Pins;
};

/**
 * One event in play: re-renders when its own event or markets change, not when others do; of its
 * parts, only those whose event or market object changed render again (a price move renders its
 * market's cells, not the link, the score or the other markets).
 */
const Row = memo(function Row({ id, store, columns, format, pinned, pins }: RowProps) {
  const subscribe = useCallback((listener: () => void) => store.subscribeRow(id, listener), [store, id]);
  const read = useCallback(() => store.row(id), [store, id]);
  const row = useStoreValue(subscribe, read);
  if (!row) return null;
  const { event } = row;
  return (
    <div
      role="row"
      data-testid="board-row"
      data-event-id={id}
      data-status={event.status}
      className={`${GRID} border-b border-(--b-line) px-3 py-2 [contain-intrinsic-size:auto_4.5rem] [content-visibility:auto] last:border-b-0`}
    >
      <EventCell id={id} event={event} store={store} pinned={pinned} pins={pins} />
      {columns.map((column, index) => (
        <div key={column.type} role="cell" className={index > 0 ? "hidden md:block" : ""}>
          <MarketCells market={marketOf(row, column.type)} type={column.type} store={store} format={format} />
        </div>
      ))}
    </div>
  );
});

/** The market in play of its type (the goal, set or round to come), else the last one settled. */
function marketOf(row: BoardRow, type: ColumnType) {
  return (
    row.markets.find((m) => m.type === type && m.status !== "settled") ?? row.markets.findLast((m) => m.type === type)
  );
}

/** The event's cell: pin, sides and score, period and clock, and how long since the row changed (kept by RowAge). */
const EventCell = memo(function EventCell(props: {
  id: string;
  event: BoardRow["event"];
  store: BoardStore;
  pinned: boolean;
  pins: Pins;
}) {
  const { id, event, store, pinned, pins } = props;
  return (
    <div role="cell" className="flex min-w-0 items-start gap-2">
      <button
        type="button"
        aria-pressed={pinned}
        aria-label={`${pinned ? "Unpin" : "Pin"} ${event.home} v ${event.away}`}
        onClick={() => pins.toggle(id)}
        className={`mt-0.5 text-lg leading-none ${pinned ? "text-(--b-warn)" : "text-(--b-muted)"}`}
      >
        {pinned ? "★" : "☆"}
      </button>
      <div className="min-w-0 flex-1">
        <Link href={`/board/${encodeURIComponent(id)}`} className="block hover:underline">
          {(["home", "away"] as const).map((side) => (
            <span key={side} className="flex justify-between gap-2">
              <span className="truncate">{event[side]}</span>
              <span data-testid={`score-${side}`} className="font-semibold tabular-nums">
                {event.score[side]}
              </span>
            </span>
          ))}
        </Link>
        <span className="flex flex-wrap gap-x-2 text-xs text-(--b-muted)">
          {event.status === "suspended" ? <span className="font-semibold text-(--b-down)">Suspended</span> : null}
          <span>{[event.period, event.clock].filter(Boolean).join(" · ")}</span>
          <RowAge id={id} store={store} />
        </span>
      </div>
    </div>
  );
});

/** The row's age, on its own: a price move changes it without rendering the event's cell again. */
function RowAge({ id, store }: { id: string; store: BoardStore }) {
  const subscribe = useCallback((listener: () => void) => store.subscribeRow(id, listener), [store, id]);
  const read = useCallback(() => store.row(id)?.changedAt ?? 0, [store, id]);
  return <Age at={useStoreValue(subscribe, read)} />;
}

/** A market's outcomes as price cells, with the line for handicap and total. */
const MarketCells = memo(function MarketCells({
  market,
  type,
  store,
  format,
}: {
  market: BoardRow["markets"][number] | undefined;
  type: ColumnType;
  store: BoardStore;
  format: OddsFormat;
}) {
  if (!market) return <span className="block text-center text-xs text-(--b-muted)">Not offered</span>;
  return (
    <MarketPrices
      market={market}
      store={store}
      format={format}
      type={type}
      label={(name, index) => shortLabel(type, name, index, market.outcomes.length)}
    />
  );
});

/** Short cell labels: 1 X 2 for a winner market, the name with its line otherwise. */
function shortLabel(type: ColumnType, name: string, index: number, count: number): string {
  if (type === "match_winner") return count === 3 ? (["1", "X", "2"][index] ?? name) : (["1", "2"][index] ?? name);
  return name.length > 14 ? name.replace(/^.*\s(?=[+-]?\d)/, index === 0 ? "H " : "A ") : name;
}

/** Sport and market filters, kept in the URL (?sport=…&market=…) so a reload or a link keeps them. */
function useFilters() {
  const params = useSearchParams();
  const pathname = usePathname();
  const sport = (params.get("sport") as SportCode | null) ?? null;
  const marketParam = params.get("market");
  const market = COLUMNS.some((c) => c.type === marketParam) ? (marketParam as ColumnType) : null;
  const set = (change: { sport?: SportCode | null; market?: ColumnType | null }) => {
    // From the address as it is now, not as this render read it: a second change made before the
    // first re-rendered keeps the first.
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(change)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    const query = next.toString();
    // The filters are the page's own: the address changes at once (useSearchParams follows it),
    // without asking the server for the page again.
    window.history.replaceState(null, "", query ? `${pathname}?${query}` : pathname);
  };
  return { sport: sport && sport in SPORT_LABELS ? sport : null, market, set };
}

/** Pinned events, kept in the browser. */
function usePins(): Pins {
  const [stored, setStored] = useStoredValue<string>("board.pinned", "");
  return useMemo(() => {
    const pinned = new Set(stored ? stored.split(",") : []);
    return {
      pinned,
      toggle(id: string) {
        const next = new Set(pinned);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        setStored([...next].join(","));
      },
    };
  }, [stored, setStored]);
}
