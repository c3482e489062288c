import { BlockList, isIPv4, isIPv6 } from "node:net";

// A production key's IP allowlist: networks in CIDR notation, IPv4 and IPv6, matched with
// node:net's BlockList. Parsed once when the key is read, so a request costs one lookup.

/** How many networks one key may list: enough for any deployment, small enough to read at a glance. */
export const MAX_ALLOWED_NETWORKS = 50;

export type ParsedNetwork = { cidr: string } | { error: string };

/**
 * One entry as written by people: `203.0.113.0/24`, `2001:db8::/32`, or a single address (its
 * /32 or /128), answered as `address/prefix`, lower-cased. Host bits may be set: `203.0.113.7/24`
 * is the /24 it is in, as routers read it.
 */
export function parseNetwork(entry: string): ParsedNetwork {
  const text = entry.trim().toLowerCase();
  const slash = text.indexOf("/");
  const address = slash === -1 ? text : text.slice(0, slash);
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return { error: `"${entry.trim()}" is not an IPv4 or IPv6 address or network` };
  const max = family === 4 ? 32 : 128;
  if (slash === -1) return { cidr: `${address}/${max}` };
  const prefixText = text.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) {
    return { error: `"${entry.trim()}": the prefix length must be a whole number from 0 to ${max}` };
  }
  return { cidr: `${address}/${prefix}` };
}

/**
 * A list as entered (one network per line, or separated by commas or spaces): the networks, in
 * order and without repeats, or what is wrong with it. An empty list means "from any address".
 */
export function parseAllowlist(text: string | readonly string[]): { networks: string[] } | { errors: string[] } {
  const entries = (typeof text === "string" ? text.split(/[\s,]+/) : text.flatMap((t) => t.split(/[\s,]+/))).filter(
    (entry) => entry.trim() !== "",
  );
  const networks: string[] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    const parsed = parseNetwork(entry);
    if ("error" in parsed) errors.push(parsed.error);
    else if (!networks.includes(parsed.cidr)) networks.push(parsed.cidr);
  }
  if (networks.length > MAX_ALLOWED_NETWORKS) {
    errors.push(`At most ${MAX_ALLOWED_NETWORKS} networks; this list has ${networks.length}`);
  }
  return errors.length > 0 ? { errors } : { networks };
}

/** The matcher of a stored list (already valid); an entry that no longer parses matches nothing. */
export class AllowList {
  readonly networks: readonly string[];
  private readonly list = new BlockList();

  constructor(networks: readonly string[]) {
    this.networks = networks;
    for (const network of networks) {
      const parsed = parseNetwork(network);
      if ("error" in parsed) continue;
      const [address, prefix] = parsed.cidr.split("/") as [string, string];
      this.list.addSubnet(address, Number(prefix), isIPv4(address) ? "ipv4" : "ipv6");
    }
  }

  /**
   * Whether a client address is in one of the networks. BlockList matches an IPv4 address reached
   * over IPv6 (`::ffff:203.0.113.7`) as the IPv4 address; anything that is not an address is not allowed.
   */
  allows(address: string): boolean {
    if (isIPv4(address)) return this.list.check(address, "ipv4");
    // A zone (fe80::1%eth0) names the interface, not the address.
    const v6 = address.split("%", 1)[0]!;
    return isIPv6(v6) && this.list.check(v6, "ipv6");
  }
}
