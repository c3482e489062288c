// The price flashes' fade, in four steps over about a second, written by one timer for every
// flashing cell at once. A CSS animation per cell was restyled on every frame while it ran, and with
// a hundred price moves a second hundreds of cells were flashing: most of the board's style work.
// Here a cell is restyled four times, in one batch with the others, and no frame in between.

const STEP_MS = 275;
const STEPS = 4;

const fading = new Map<HTMLElement, number>();
let timer: ReturnType<typeof setInterval> | undefined;

/** The step of a fade begun at `at` (ms): 0 is the full colour, STEPS is gone. */
export function fadeStep(at: number, now: number): number {
  return Math.min(STEPS, Math.max(0, Math.floor((now - at) / STEP_MS)));
}

// Written only when it moves on: setting an attribute, even to its value, invalidates the style.
function draw(element: HTMLElement, step: number): void {
  if (element.dataset.step !== String(step)) element.dataset.step = String(step);
}

function tick(): void {
  const now = Date.now();
  for (const [element, at] of fading) {
    const step = fadeStep(at, now);
    draw(element, step);
    if (step === STEPS || !element.isConnected) fading.delete(element);
  }
  if (fading.size === 0) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** Fades `element` (its `data-step`, which the stylesheet draws) from a flash begun at `at`. */
export function fade(element: HTMLElement, at: number): void {
  const step = fadeStep(at, Date.now());
  draw(element, step);
  if (step === STEPS) return;
  fading.set(element, at);
  timer ??= setInterval(tick, STEP_MS);
}
