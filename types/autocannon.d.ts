// autocannon ships no types, and @types/autocannon follows an older major; this declares only the
// part of the programmatic API that bench/api.ts uses, as autocannon 9 documents it.
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p2_5: number;
    p50: number;
    p75: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
  };

  export type Options = {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds without an answer before a request counts as a timeout. */
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    title?: string;
  };

  export type Result = {
    title?: string;
    url: string;
    duration: number;
    connections: number;
    pipelining: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    /** Milliseconds. */
    latency: Histogram;
    /** Requests per one-second sample. */
    requests: Histogram & { sent: number };
    /** Bytes per one-second sample. */
    throughput: Histogram;
  };

  export type Instance = EventEmitter & PromiseLike<Result> & { stop(): void };

  export default function autocannon(options: Options): Instance;
}
