import { clientAddress } from "../../http/client-address.ts";
import { ApiError } from "../request/errors.ts";

// A key with a valid checksum that no one holds is refused from the instance's index of every
// key's hash, without a read. While that index is read again (after the bus's notices may have
// been lost) it costs a read, and each client address may cause so many such reads a minute; beyond them, a key not yet known to this instance is refused without a read, and every
// refusal starts the minute again, so an address that keeps guessing costs nothing more until it
// stops for a minute. A client's own keys, once read, are never refused here.

/** Reads of unknown keys an address may cause per window. */
export const GUESSES_PER_WINDOW = 300;
const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 100_000;

type Window = { start: number; guesses: number };

export class KeyGuesses {
  private readonly windows = new Map<string, Window>();

  /** Counts a read of a key this instance does not know; throws 429 when the address is over. */
  take(address: string, now: number): void {
    let window = this.windows.get(address);
    if (!window || now - window.start >= WINDOW_MS) {
      if (window) this.windows.delete(address);
      else if (this.windows.size >= MAX_ADDRESSES) this.windows.delete(this.windows.keys().next().value!);
      window = { start: now, guesses: 0 };
      this.windows.set(address, window);
    }
    if (window.guesses >= GUESSES_PER_WINDOW) {
      window.start = now;
      throw new ApiError(
        "rate_limited",
        `Too many unknown API keys from this address (${GUESSES_PER_WINDOW} a minute); try again after a minute without any. Keys already in use from it still work.`,
        {
          headers: { "retry-after": String(WINDOW_MS / 1000) },
          extensions: { "violated-policies": ["unknown_keys"] },
        },
      );
    }
    window.guesses++;
  }

  /** The key read was one that exists: not a guess. */
  giveBack(address: string): void {
    const window = this.windows.get(address);
    if (window && window.guesses > 0) window.guesses--;
  }
}

/**
 * The client's address: one IPv6 network (/64) counts as one address, since whoever has one
 * address of it usually has them all. `peer` is the connection's own peer when the request came
 * straight from node:http; through Next, server.ts has already put it at the end of
 * X-Forwarded-For.
 */
export function clientAddressOf(forwardedFor: string | undefined, peer: string | undefined, hops: number): string {
  return network(clientAddressFrom(forwardedFor, peer, hops));
}

/** The client's own address, as a key's IP allowlist is matched against it; see `clientAddressOf`. */
export function clientAddressFrom(forwardedFor: string | undefined, peer: string | undefined, hops: number): string {
  const chain = peer === undefined ? forwardedFor : hops > 0 && forwardedFor ? `${forwardedFor}, ${peer}` : peer;
  return clientAddress(chain, hops);
}

function network(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.toLowerCase().split("::", 2);
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
