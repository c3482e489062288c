// Decoded archive chunks kept in memory, least recently used first out: a timeline scrubbing
// nearby moments, or a board read again, decodes the same chunks. Chunks are written once (one
// insert per bucket, never updated) and go only with their partition, so nothing is invalidated
// by time; a hit also requires the payload just read to be the one decoded, byte for byte, so a
// chunk that is not the one cached (another database in the same process, one recreated) is
// decoded afresh. The bound counts each chunk's decoded text and its payload, in bytes: the states built
// from the text grow with it.

/** What a cached chunk holds, and how much of the bound it takes. */
type Entry<T> = { payload: Uint8Array; value: T; bytes: number };

export class ChunkCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private used = 0;

  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The value decoded from `payload` under `key`, if it is still held; it becomes the newest. */
  get(key: string, payload: Uint8Array): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!sameBytes(entry.payload, payload)) {
      this.remove(key, entry);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, decoded from `payload`, counting `bytes`; drops the least recently used past the bound. */
  set(key: string, payload: Uint8Array, value: T, bytes: number): void {
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    if (bytes + payload.byteLength > this.maxBytes) return;
    // A copy: a driver's buffer may be a view of the whole answer it came in.
    this.entries.set(key, { payload: payload.slice(), value, bytes: bytes + payload.byteLength });
    this.used += bytes + payload.byteLength;
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.remove(oldest, entry);
    }
  }

  /** The chunks held and the bytes they count. */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.used };
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  private remove(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.used -= entry.bytes;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** Freezes a decoded state and everything in it, stopping at what is frozen already (shared parts). */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
  return value;
}
