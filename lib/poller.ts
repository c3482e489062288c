/**
 * One look at an outbox at a time: `wake()` looks now (or once more right after the look under way,
 * when something was queued meanwhile), and with nothing to wake it, it looks again after `idleMs()`.
 * The mail's and the webhooks' workers each hold one.
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
    this.running = this.look().finally(() => {
      this.ticking = false;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.wake();
      } else {
        this.timer = setTimeout(() => this.wake(), this.idleMs());
      }
    });
  }

  /** Resolves once the look under way, if any, has ended. */
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
