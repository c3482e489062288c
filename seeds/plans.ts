import type { plans } from "../lib/db/schema/index.ts";
import { SPORTS } from "../lib/db/schema/index.ts";

/** The plans on offer. The seed writes them on every start, so a change here rolls out with a deploy. */
export const PLANS = [
  {
    code: "sandbox",
    name: "Sandbox",
    environment: "sandbox",
    description: "One sport, the feed 60 seconds behind, 30 days: for building an integration.",
    sports: [],
    monthlyQuota: 1_000,
    requestsPerSecond: 2,
    concurrentStreams: 2,
    monthlyPriceCents: 0,
    ordinal: 0,
  },
  {
    code: "starter",
    name: "Starter",
    environment: "production",
    description: "Real-time soccer, basketball and tennis for a single product.",
    sports: ["soccer", "basketball", "tennis"],
    monthlyQuota: 100_000,
    requestsPerSecond: 10,
    concurrentStreams: 5,
    monthlyPriceCents: 9_900,
    ordinal: 1,
  },
  {
    code: "pro",
    name: "Pro",
    environment: "production",
    description: "Every sport in real time, for busy apps and odds boards.",
    sports: [...SPORTS],
    monthlyQuota: 1_000_000,
    requestsPerSecond: 50,
    concurrentStreams: 25,
    monthlyPriceCents: 49_900,
    ordinal: 2,
  },
  {
    code: "enterprise",
    name: "Enterprise",
    environment: "production",
    description: "Every sport, high volume and many concurrent streams; priced on request.",
    sports: [...SPORTS],
    monthlyQuota: 10_000_000,
    requestsPerSecond: 200,
    concurrentStreams: 200,
    monthlyPriceCents: null,
    ordinal: 3,
  },
] as const satisfies readonly (typeof plans.$inferInsert)[];
