import "#server-only";

/**
 * Process-wide cells. The custom server and the code Next bundles for pages, actions and route
 * handlers load separate copies of `lib/` in one process: they share only `globalThis`. Each cell is
 * typed by the module that owns it, so this one imports nothing and sits below everything.
 */
const holder = globalThis as typeof globalThis & { __sportsDataService?: Record<string, object> };
const cells = (holder.__sportsDataService ??= {});

/** The cell named `name`, made by `make` the first time any copy of `lib/` asks for it. */
export function processCell<T extends object>(name: string, make: () => T): T {
  return (cells[name] ??= make()) as T;
}
