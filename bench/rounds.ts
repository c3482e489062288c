// How the measured time of a benchmark is split into rounds (kept apart from load.ts, which pins
// the process it is loaded in to a core).

/**
 * `total` seconds split into `rounds` whole seconds (wrk takes no fraction): as even as they can
 * be, the longer ones first, never under one second, so 10 in 3 rounds is 4, 3 and 3.
 */
export function roundSeconds(total: number, rounds: number): number[] {
  const whole = Math.max(rounds, Math.round(total));
  return Array.from({ length: rounds }, (_, i) => Math.floor(whole / rounds) + (i < whole % rounds ? 1 : 0));
}
