/** A stream's place in its key's concurrent-stream limit; `release` when the stream ends. */
export type StreamSlot = { release(): void };

// This instance repeats its open streams this often, so that the others can tell it still holds them.
const STREAMS_REPEAT_MS = 5_000;

/** This instance's open streams per key, and which of them the other instances must hear of. */
export class StreamSlots {
  private readonly open = new Map<string, number>();
  private changed = new Set<string>();
  private repeatedAt = 0;

  of(keyId: string): number {
    return this.open.get(keyId) ?? 0;
  }

  /** A slot for one more stream of the key, or null when `elsewhere` and ours reach `limit`. */
  take(keyId: string, limit: number, elsewhere: number): StreamSlot | null {
    const own = this.open.get(keyId) ?? 0;
    if (own + elsewhere >= limit) return null;
    this.open.set(keyId, own + 1);
    this.changed.add(keyId);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.open.get(keyId) ?? 1) - 1;
        if (left > 0) this.open.set(keyId, left);
        else this.open.delete(keyId);
        this.changed.add(keyId);
      },
    };
  }

  /** Whether streams opened or closed since the last announcement. */
  get anyChanged(): boolean {
    return this.changed.size > 0;
  }

  /** Whether the open streams are due to be repeated at `at` (epoch ms). */
  repeatDue(at: number): boolean {
    return this.open.size > 0 && at - this.repeatedAt >= STREAMS_REPEAT_MS;
  }

  /** The keys a flush announces: those that changed, and every open one when they are repeated. */
  takeAnnounced(repeat: boolean): Set<string> {
    const keys = repeat ? new Set([...this.open.keys(), ...this.changed]) : this.changed;
    this.changed = new Set();
    return keys;
  }

  /** A flush that failed announced nothing: its keys are announced by the next one. */
  putBack(keys: Set<string>): void {
    for (const keyId of keys) this.changed.add(keyId);
  }

  repeated(at: number): void {
    this.repeatedAt = at;
  }
}
