/**
 * One look at a source at a time: `wake()` looks now, or once more right after the look under way
 * (something arrived meanwhile), and with nothing to wake it, it looks again after `idleMs()`. The
 * mail's and the webhooks' outboxes and the feed views' revision history each have one.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private again = false;
  private ticking = false;
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

  // The looks a wake asked for, the repeats included: what `settled()` waits for.
  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.look();
      } while (this.again && !this.stopped);
    } finally {
      this.ticking = false;
      if (!this.stopped) this.timer = setTimeout(() => this.wake(), this.idleMs());
    }
  }

  /** Resolves once the looks under way, and any asked for while they ran, have ended. */
  settled(): Promise<void> {
    return this.running;
  }

  /** No more looks; resolves once the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
