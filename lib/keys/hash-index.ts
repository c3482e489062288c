// Every key's hash an instance knows exists, so that a key no one holds is refused without a
// database read and without counting against its sender's address. Kept as the first 64 bits of
// each SHA-256 in an open-addressing table of two Uint32Arrays: 16 bytes a slot, at most half the
// slots used, so 16 to 32 bytes a key and one or two probes a lookup (docs/security.md has the
// figures for a million keys). A prefix shared by two hashes only sends a guess on to the key
// cache's read, which then finds no key: it never admits one.

const EMPTY = 0;
const MIN_SLOTS = 1024;

/** The first 64 bits of a hex SHA-256, as two 32-bit halves; the low half is never 0 (0 marks a free slot). */
function halves(keyHash: string): [number, number] {
  const high = Number.parseInt(keyHash.slice(0, 8), 16) >>> 0;
  const low = Number.parseInt(keyHash.slice(8, 16), 16) >>> 0 || 1;
  return [high, low];
}

export class KeyHashIndex {
  private high: Uint32Array;
  private low: Uint32Array;
  private used = 0;

  constructor(expected = 0) {
    let slots = MIN_SLOTS;
    while (slots < expected * 2) slots *= 2;
    this.high = new Uint32Array(slots);
    this.low = new Uint32Array(slots);
  }

  /** How many hashes it holds. */
  get size(): number {
    return this.used;
  }

  /** The memory its table takes, in bytes. */
  get bytes(): number {
    return this.high.byteLength + this.low.byteLength;
  }

  add(keyHash: string): void {
    if ((this.used + 1) * 2 > this.high.length) this.grow();
    if (this.insert(...halves(keyHash))) this.used++;
  }

  /** Whether a key may have this hash: false is certain, true is checked by a read. */
  has(keyHash: string): boolean {
    const [high, low] = halves(keyHash);
    const mask = this.high.length - 1;
    for (let slot = (high ^ low) & mask; ; slot = (slot + 1) & mask) {
      if (this.low[slot] === EMPTY) return false;
      if (this.high[slot] === high && this.low[slot] === low) return true;
    }
  }

  private insert(high: number, low: number): boolean {
    const mask = this.high.length - 1;
    for (let slot = (high ^ low) & mask; ; slot = (slot + 1) & mask) {
      if (this.low[slot] === EMPTY) {
        this.high[slot] = high;
        this.low[slot] = low;
        return true;
      }
      if (this.high[slot] === high && this.low[slot] === low) return false;
    }
  }

  private grow(): void {
    const [high, low] = [this.high, this.low];
    this.high = new Uint32Array(high.length * 2);
    this.low = new Uint32Array(low.length * 2);
    for (let slot = 0; slot < high.length; slot++) if (low[slot] !== EMPTY) this.insert(high[slot]!, low[slot]!);
  }
}
