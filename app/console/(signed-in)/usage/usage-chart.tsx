"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { UsageMonth } from "@/lib/console/usage";

// Distinguishable colours with at least 3:1 contrast against white, as WCAG asks of graphics.
const COLOURS = ["#1d4ed8", "#b45309", "#7e22ce", "#be123c", "#0e7490", "#4d7c0f", "#9d174d", "#334155"];

export function UsageChart({ usage }: { usage: UsageMonth }) {
  return (
    <div className="h-80 w-full" data-testid="usage-chart">
      <LineChart responsive data={usage.days} style={{ width: "100%", height: "100%" }} margin={{ left: 0, right: 8 }}>
        <CartesianGrid stroke="#e2e8f0" />
        <XAxis dataKey="day" tickFormatter={(day: string) => String(Number(day.slice(8)))} stroke="#334155" />
        <YAxis allowDecimals={false} stroke="#334155" width={56} />
        <Tooltip />
        <Legend />
        <Line
          type="linear"
          dataKey="total"
          name="Total"
          stroke="#0b3d23"
          strokeWidth={3}
          dot={false}
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
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </div>
  );
}
