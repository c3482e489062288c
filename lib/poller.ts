/**
 * One look at a source at a time: `wake()` looks now, or once more right after the look under way
 * (something arrived meanwhile); `lookIn(ms)` asks for a look by then (a retry falls due); with
 * nothing to wake it, it looks again after `idleMs()`. The mail's and the webhooks' outboxes and the
 * feed views' revision history each have one.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private again = false;
  private ticking = false;
  /** When looks were asked for by `lookIn`, as `Date.now()` times; a look forgets those it covers. */
  private readonly asked = new Set<number>();
  private readonly look: () => Promise<void>;
  private readonly idleMs: () => number;
  stopped = false;

  constructor(look: () => Promise<void>, idleMs: () => number) {
    this.look = look;
    this.idleMs = idleMs;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = true;
    this.running = this.run();
  }

  /** Looks again within `ms`, whatever wakes it before: what the idle time alone would miss. */
  lookIn(ms: number): void {
    if (this.stopped) return;
    this.asked.add(Date.now() + Math.max(0, ms));
    if (!this.ticking) this.arm();
  }

  // The looks a wake asked for, the repeats included: what `settled()` waits for.
  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        const started = Date.now();
        for (const at of this.asked) if (at <= started) this.asked.delete(at);
        await this.look();
      } while (this.again && !this.stopped);
    } finally {
      this.ticking = false;
      if (!this.stopped) this.arm();
    }
  }

  private arm(): void {
    clearTimeout(this.timer);
    let wait = this.idleMs();
    const now = Date.now();
    for (const at of this.asked) wait = Math.min(wait, at - now);
    this.timer = setTimeout(() => this.wake(), Math.max(0, wait));
  }

  /** Resolves once the looks under way, and any asked for while they ran, have ended. */
  settled(): Promise<void> {
    return this.running;
  }

  /** No more looks; resolves once the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.asked.clear();
    await this.running;
  }
}
