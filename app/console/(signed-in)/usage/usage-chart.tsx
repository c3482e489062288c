"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { UsageMonth } from "@/lib/console/usage";
import { chartDays } from "./chart-days";

// Distinguishable colours with at least 3:1 contrast against the page, light or dark, as WCAG asks
// of graphics (globals.css).
const COLOURS = Array.from({ length: 8 }, (_, i) => `var(--b-series-${i + 1})`);

/**
 * Requests per day: the whole month on the axis, every day labelled (the chart scrolls sideways on
 * a narrow screen rather than dropping labels), the lines ending today.
 */
export function UsageChart({ usage, today }: { usage: UsageMonth; today: string }) {
  const data = chartDays(usage, today);
  return (
    <div
      className="overflow-x-auto"
      tabIndex={0}
      role="region"
      aria-label="Requests per day, as a chart (the table below has the totals)"
    >
      <div className="h-80 w-full min-w-[40rem]" data-testid="usage-chart">
        <LineChart responsive data={data} style={{ width: "100%", height: "100%" }} margin={{ left: 0, right: 8 }}>
          <CartesianGrid stroke="var(--b-line)" />
          <XAxis dataKey="label" interval={0} stroke="var(--b-muted)" tick={{ fill: "var(--b-muted)", fontSize: 12 }} />
          <YAxis
            allowDecimals={false}
            stroke="var(--b-muted)"
            tick={{ fill: "var(--b-muted)", fontSize: 12 }}
            width={56}
          />
          <Tooltip
            labelFormatter={(_, rows) => String(rows[0]?.payload?.day ?? "")}
            contentStyle={{ background: "var(--b-bg)", borderColor: "var(--b-line)" }}
            labelStyle={{ color: "var(--b-fg)" }}
          />
          <Legend />
          <Line
            type="linear"
            dataKey="total"
            name="Total"
            stroke="var(--b-fg)"
            strokeWidth={3}
            dot={false}
            connectNulls={false}
            isAnimationActive={false}
          />
          {usage.keys.map((key, i) => (
            <Line
              key={key.keyId}
              type="linear"
              dataKey={key.keyId}
              name={key.label}
              stroke={COLOURS[i % COLOURS.length]}
              strokeWidth={1.5}
              dot={false}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </div>
    </div>
  );
}
