import { checkKeyFormat, hashKey } from "../../keys/format.ts";

// Only well-formed keys are kept, and the oldest goes when the map is full, so invented keys cannot
// grow it.
const KEY_HASHES_MAX = 10_000;

/**
 * SHA-256 of the keys already seen, by the value sent: a client sends the same key on every
 * request, and checking its checksum and hashing it again each time was a visible share of a
 * request's CPU. A hash is a pure function of the key, so an entry is never stale. One per instance.
 */
export class KeyHashes {
  private readonly hashes = new Map<string, string>();

  /** The hash of a key whose checksum matches; null for anything else. */
  wellFormed(keyValue: string): string | null {
    const known = this.hashes.get(keyValue);
    if (known !== undefined) return known;
    // The checksum refuses mistyped and invented keys without a database read.
    if (!checkKeyFormat(keyValue)) return null;
    const keyHash = hashKey(keyValue);
    if (this.hashes.size >= KEY_HASHES_MAX) this.hashes.delete(this.hashes.keys().next().value!);
    this.hashes.set(keyValue, keyHash);
    return keyHash;
  }
}
