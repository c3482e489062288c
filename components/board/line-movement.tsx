"use client";

import { memo, useMemo } from "react";
import type { Histories } from "./event-reads";
import type { OddsFormat } from "./odds-format";
import { PriceChart } from "./price-chart";
import { mergePoints, type MarketPoint } from "./price-series";
import type { Market } from "./stream-store";

// Every market's line movement, a chart each: the history read once, extended by the stream.

type Props = {
  markets: readonly Market[];
  histories: Histories;
  live: Readonly<Record<string, readonly MarketPoint[]>>;
  /** The window the charts show (s). */
  from: number;
  until: number;
  moment: number | null;
  format: OddsFormat;
};

export function LineMovement({ markets, histories, live, from, until, moment, format }: Props) {
  return (
    <section aria-labelledby="movement-title">
      <h2 id="movement-title" className="mb-2 text-lg font-semibold">
        Line movement
      </h2>
      {markets.length === 0 ? (
        <p className="text-sm text-(--b-muted)">No market is offered on this event.</p>
      ) : (
        <div className="grid gap-3 sm:grid-cols-2">
          {markets.map((market) => (
            <MarketMovement
              key={market.id}
              market={market}
              history={histories.points[market.id]}
              live={live[market.id]}
              loading={!histories.settled && !histories.points[market.id]}
              failed={histories.failed.includes(market.id)}
              from={from}
              until={until}
              moment={moment}
              format={format}
            />
          ))}
        </div>
      )}
    </section>
  );
}

const MarketMovement = memo(function MarketMovement(props: {
  market: Market;
  history: readonly MarketPoint[] | undefined;
  live: readonly MarketPoint[] | undefined;
  loading: boolean;
  failed: boolean;
  from: number;
  until: number;
  moment: number | null;
  format: OddsFormat;
}) {
  const { history, live } = props;
  const points = useMemo(() => mergePoints(history, live), [history, live]);
  if (props.loading) {
    return (
      <p className="rounded-lg border border-(--b-line) bg-(--b-cell) p-3 text-sm text-(--b-muted)">
        {props.market.name}: reading its price history…
      </p>
    );
  }
  return (
    <div className="min-w-0">
      <PriceChart
        market={props.market}
        points={points}
        from={props.from}
        until={props.until}
        moment={props.moment}
        format={props.format}
      />
      {props.failed ? (
        <p className="mt-1 text-xs text-(--b-muted)">
          Earlier prices could not be read: this shows the changes since the page opened.
        </p>
      ) : null}
    </div>
  );
});
