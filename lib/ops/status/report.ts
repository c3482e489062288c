import {
  availability,
  COMPONENTS,
  merge,
  minuteVerdicts,
  percentile,
  type Component,
  type Histogram,
  type MinuteRecord,
} from "./figures.ts";
import type { Incident } from "./incidents.ts";
import { sportName } from "../../sports.ts";

// The status page's document, from the minutes recorded, the incidents and the state now. Pure:
// the tests give it a scripted history. `/status.json` serves it and `/status` draws it.

export type ComponentState = "operational" | "degraded" | "down";

export type StatusReport = {
  status: ComponentState;
  updated_at: string;
  /** False while this instance cannot reach the database: figures are from its last reading. */
  database_reachable: boolean;
  /**
   * The first minute recorded: a window reaching back before it shows only what was observed since
   * then (each window's figure is then the same), so the page shows that period once; null: none yet.
   */
  observed_since: string | null;
  components: {
    id: Component;
    name: string;
    state: ComponentState;
    availability: { "24h": number | null; "7d": number | null; "30d": number | null };
  }[];
  latency: {
    window_minutes: number;
    rest_p50_ms: number | null;
    rest_p95_ms: number | null;
    stream_lag_p95_ms: number | null;
  };
  incidents: {
    id: string;
    title: string;
    state: string;
    components: string[];
    started_at: string;
    resolved_at: string | null;
    updates: { at: string; state: string; text: string }[];
  }[];
};

const NAMES: Record<(typeof COMPONENTS)[number], string> = {
  api: "REST API",
  streams: "Streams",
  console: "Console",
};
const nameOf = (component: Component) =>
  component.startsWith("feed:")
    ? `Feed: ${sportName(component.slice(5))}`
    : NAMES[component as (typeof COMPONENTS)[number]];

export type ReportInput = {
  now: Date;
  minutes: readonly MinuteRecord[];
  /** The last hour's latencies. */
  recent: { rest: Histogram[]; streamLag: Histogram[] };
  incidents: readonly Incident[];
  /** This instance's readiness now, and each live sport's freshness now. */
  ready: boolean;
  feeds: ReadonlyMap<string, boolean>;
  databaseReachable: boolean;
};

export function statusReport(input: ReportInput): StatusReport {
  const verdicts = minuteVerdicts(input.minutes);
  const since = (days: number) => availability(verdicts, new Date(input.now.getTime() - days * 86_400_000));
  const windows = { "24h": since(1), "7d": since(7), "30d": since(30) };
  const open = input.incidents.filter((incident) => incident.state !== "resolved");
  const sports = new Set([
    ...input.feeds.keys(),
    ...[...windows["30d"].keys()].filter((c) => c.startsWith("feed:")).map((c) => c.slice(5)),
  ]);
  const components: Component[] = [...COMPONENTS, ...[...sports].sort().map((sport) => `feed:${sport}` as const)];
  const stateOf = (component: Component): ComponentState => {
    const up = component.startsWith("feed:")
      ? input.ready && input.feeds.get(component.slice(5)) !== false
      : input.ready;
    if (!up) return "down";
    return open.some((incident) => incident.components.includes(component)) ? "degraded" : "operational";
  };
  const states = components.map((id) => ({
    id,
    name: nameOf(id),
    state: stateOf(id),
    availability: {
      "24h": windows["24h"].get(id)?.percent ?? null,
      "7d": windows["7d"].get(id)?.percent ?? null,
      "30d": windows["30d"].get(id)?.percent ?? null,
    },
  }));
  const core = states.filter((s) => !s.id.startsWith("feed:"));
  const status: ComponentState = core.some((s) => s.state === "down")
    ? "down"
    : states.some((s) => s.state !== "operational")
      ? "degraded"
      : "operational";
  const rest = merge(input.recent.rest);
  const first = Math.min(...input.minutes.map((record) => record.minute.getTime()));
  return {
    status,
    updated_at: input.now.toISOString(),
    database_reachable: input.databaseReachable,
    observed_since: Number.isFinite(first) ? new Date(first).toISOString() : null,
    components: states,
    latency: {
      window_minutes: 60,
      rest_p50_ms: percentile(rest, 50),
      rest_p95_ms: percentile(rest, 95),
      stream_lag_p95_ms: percentile(merge(input.recent.streamLag), 95),
    },
    incidents: input.incidents.map((incident) => ({
      id: incident.id,
      title: incident.title,
      state: incident.state,
      components: incident.components,
      started_at: incident.startedAt.toISOString(),
      resolved_at: incident.resolvedAt?.toISOString() ?? null,
      updates: incident.updates,
    })),
  };
}
