"use client";

import { memo, useMemo } from "react";
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { useShownZone } from "@/components/display-settings";
import { formatPrice, type OddsFormat } from "./odds-format";
import { clockTime, zonedClock } from "./past-moment";
import {
  anyPriceDrawn,
  chartSeries,
  pointsSince,
  priceDomain,
  priceRange,
  priceScale,
  type ChartRow,
  type MarketPoint,
} from "./price-series";
import type { Market } from "./stream-store";

// One market's line movement, a small chart among the event's others: each outcome's price over
// the timeline's window as a step line, told apart by colour and dash, with a legend giving the
// first and last price and, for screen readers, every change as a table.

const STROKES = [
  { colour: "var(--b-series-1)", dash: undefined },
  { colour: "var(--b-series-2)", dash: "6 3" },
  { colour: "var(--b-series-3)", dash: "2 3" },
  { colour: "var(--b-series-4)", dash: "8 3 2 3" },
] as const;
const stroke = (index: number) => STROKES[index % STROKES.length]!;
/** The table tells of this many changes at most, the latest. */
const TABLE_ROWS = 30;

const seconds = (ms: number) => Math.floor(ms / 1_000);

type Props = {
  market: Market;
  points: readonly MarketPoint[];
  /** The window shown (s). */
  from: number;
  until: number;
  /** The moment the page shows, when it is in the past (s). */
  moment: number | null;
  format: OddsFormat;
};

export const PriceChart = memo(function PriceChart({ market, points, from, until, moment, format }: Props) {
  const zone = useShownZone();
  const time = (ms: number) => clockTime(seconds(ms), zone);
  const series = useMemo(() => chartSeries(points, from * 1_000, until * 1_000), [points, from, until]);
  const prices = useMemo(() => priceDomain(series.rows), [series]);
  const end = Math.max(until * 1_000, series.rows.at(-1)?.at ?? 0);
  const told = useMemo(() => pointsSince(points, from * 1_000), [points, from]);
  const names = new Map(market.outcomes.map((outcome) => [outcome.id, outcome.name]));
  const name = (id: string) => names.get(id) ?? id;
  const titleId = `chart-${market.id}`;
  return (
    <figure
      data-testid="price-chart"
      data-market-id={market.id}
      aria-labelledby={titleId}
      className="min-w-0 rounded-lg border border-(--b-line) bg-(--b-cell) p-3"
    >
      <figcaption id={titleId} className="flex items-baseline justify-between gap-2 text-sm">
        <span className="font-semibold">{market.name}</span>
        {market.line !== null ? <span className="text-xs text-(--b-muted)">line {market.line}</span> : null}
      </figcaption>
      {series.rows.length === 0 ? (
        <p className="py-6 text-center text-xs text-(--b-muted)">No price history yet.</p>
      ) : !anyPriceDrawn(series.rows) ? (
        <p className="py-6 text-center text-xs text-(--b-muted)">
          {market.status === "settled" ? "Settled: no price was offered in this window." : "Suspended all the while."}
        </p>
      ) : (
        <div className="mt-1 h-28 w-full" aria-hidden="true">
          <LineChart
            responsive
            accessibilityLayer={false}
            data={series.rows}
            style={{ width: "100%", height: "100%" }}
            margin={{ top: 4, right: 4, bottom: 0, left: 0 }}
          >
            <CartesianGrid stroke="var(--b-line)" vertical={false} />
            <XAxis
              dataKey="at"
              type="number"
              domain={[from * 1_000, end]}
              ticks={[from * 1_000, (from * 1_000 + end) / 2, end]}
              tickFormatter={time}
              stroke="var(--b-muted)"
              tick={{ fill: "var(--b-muted)", fontSize: 11 }}
            />
            <YAxis
              domain={prices}
              scale={priceScale(prices)}
              tickCount={3}
              width={36}
              tickFormatter={(price: number) => (price >= 100 ? price.toFixed(0) : price.toFixed(2))}
              stroke="var(--b-muted)"
              tick={{ fill: "var(--b-muted)", fontSize: 11 }}
            />
            <Tooltip
              labelFormatter={(at) => zonedClock(seconds(Number(at)), zone)}
              formatter={(price) => (typeof price === "number" ? formatPrice(price, format) : "—")}
              contentStyle={{ background: "var(--b-bg)", borderColor: "var(--b-line)", fontSize: 12 }}
              labelStyle={{ color: "var(--b-fg)" }}
            />
            {moment !== null ? (
              <ReferenceLine x={moment * 1_000} stroke="var(--b-warn)" strokeWidth={2} strokeDasharray="3 2" />
            ) : null}
            {series.outcomes.map((id, index) => (
              <Line
                key={id}
                type="stepAfter"
                dataKey={(row: ChartRow) => row.values[id] ?? null}
                name={name(id)}
                stroke={stroke(index).colour}
                strokeDasharray={stroke(index).dash}
                strokeWidth={2}
                dot={false}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </div>
      )}
      <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs">
        {series.outcomes.map((id, index) => {
          const range = priceRange(told, id);
          return (
            <li key={id} className="flex items-center gap-1">
              <svg aria-hidden="true" viewBox="0 0 16 4" className="h-1 w-4">
                <line
                  x1="0"
                  y1="2"
                  x2="16"
                  y2="2"
                  stroke={stroke(index).colour}
                  strokeWidth="3"
                  strokeDasharray={stroke(index).dash}
                />
              </svg>
              <span>{name(id)}</span>
              {range ? (
                <span className="tabular-nums text-(--b-muted)">
                  {range.first === range.last
                    ? formatPrice(range.last, format)
                    : `${formatPrice(range.first, format)} → ${formatPrice(range.last, format)}`}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
      <ChangesTable
        told={told}
        outcomes={series.outcomes}
        name={name}
        format={format}
        title={market.name}
        time={(ms) => zonedClock(seconds(ms), zone)}
      />
    </figure>
  );
});

/** The chart's text alternative: each change, the latest few, with every outcome's price. */
function ChangesTable(props: {
  told: readonly MarketPoint[];
  outcomes: string[];
  name(id: string): string;
  format: OddsFormat;
  title: string;
  time(ms: number): string;
}) {
  const { told, outcomes, format, time } = props;
  if (told.length === 0) return null;
  const shown = told.slice(-TABLE_ROWS);
  return (
    // Hidden by its wrapper: a table is not clipped by overflow, and a wide one widened the page.
    <div className="sr-only">
      <table data-testid="price-changes">
        <caption>
          {props.title}: prices over time
          {shown.length < told.length ? `, the last ${shown.length} of ${told.length} states` : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {outcomes.map((id) => (
              <th key={id} scope="col">
                {props.name(id)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((point) => (
            <tr key={point.revision}>
              <th scope="row">{time(Date.parse(point.at))}</th>
              {outcomes.map((id) => {
                const outcome = point.outcomes.find((o) => o.id === id);
                const open = point.status === "open" && outcome?.status === "active";
                return (
                  <td key={id}>
                    {!outcome
                      ? "—"
                      : open
                        ? formatPrice(outcome.price, format)
                        : point.status === "open"
                          ? outcome.status
                          : point.status}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
