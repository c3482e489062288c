import "#server-only";
import type { AsyncLocalStorage } from "node:async_hooks";
import type { Instance } from "./instance.ts";
import type { Logging, RequestScope } from "./log/index.ts";

/**
 * The one process-wide slot. The custom server and the code Next bundles for pages, actions and
 * route handlers load separate copies of `lib/` in one process: they share only `globalThis`.
 */
export type ProcessSlot = {
  /** The running instance, from `startInstance` until it stops. */
  instance?: Instance;
  /** The logger, made at first use (before the instance, for start-up's own lines). */
  logging?: Logging & { scope: AsyncLocalStorage<RequestScope> };
};

const holder = globalThis as typeof globalThis & { __sportsDataService?: ProcessSlot };

export const slot: ProcessSlot = (holder.__sportsDataService ??= {});

/** The running instance, for the code Next bundles (pages, actions, route handlers). */
export function currentInstance(): Instance {
  if (!slot.instance) throw new Error("The service is not started: it runs in server.ts's process.");
  return slot.instance;
}
