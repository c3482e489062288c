import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

// Addresses a webhook must not reach unless the operator allows it: the server's own network.
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  // Local-use NAT64 (RFC 8215): translated by a gateway inside the operator's network.
  ["64:ff9b:1::", 48],
  // Discard-only.
  ["100::", 64],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

/** The ports a webhook may name unless private addresses are allowed: the web's own. */
export const WEBHOOK_PORTS: readonly number[] = [80, 443];

/** The refusal of a URL whose host is private or does not resolve: one sentence, so it tells nothing of the network. */
export const NOT_PUBLIC =
  "must name a host on the public internet (private, loopback and unresolvable hosts are refused)";

/** The 16 bytes of an IPv6 address (already checked by `isIP`), with a dotted IPv4 tail expanded. */
function ipv6Bytes(address: string): Uint8Array {
  let text = address.replace(/%.*$/, "");
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group || "0", 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

const dotted = (bytes: Uint8Array, at: number, xor = 0) =>
  Array.from(bytes.subarray(at, at + 4), (byte) => byte ^ xor).join(".");

const zeros = (bytes: Uint8Array, from: number, to: number) => bytes.subarray(from, to).every((byte) => byte === 0);

/**
 * The IPv4 addresses an IPv6 address carries and that a packet to it may reach: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16) and Teredo (2001::/32, server and client).
 */
export function embeddedIpv4(address: string): string[] {
  const bytes = ipv6Bytes(address);
  const found: string[] = [];
  const hextet = (i: number) => (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!;
  if (zeros(bytes, 0, 10) && hextet(5) === 0xffff) found.push(dotted(bytes, 12));
  if (zeros(bytes, 0, 8) && hextet(4) === 0xffff && hextet(5) === 0) found.push(dotted(bytes, 12));
  if (zeros(bytes, 0, 12) && !zeros(bytes, 12, 16)) found.push(dotted(bytes, 12));
  if (hextet(0) === 0x64 && hextet(1) === 0xff9b && zeros(bytes, 4, 12)) found.push(dotted(bytes, 12));
  if (hextet(0) === 0x2002) found.push(dotted(bytes, 2));
  if (hextet(0) === 0x2001 && hextet(1) === 0) found.push(dotted(bytes, 4), dotted(bytes, 12, 0xff));
  return found;
}

/** Whether an IP address is private, loopback, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family !== 6) return true;
  // An IPv4 address carried in IPv6 is judged as the IPv4 address a packet would reach.
  if (embeddedIpv4(address).some((inside) => PRIVATE.check(inside, "ipv4"))) return true;
  return PRIVATE.check(address.replace(/%.*$/, ""), "ipv6");
}

/** The URL's port, its scheme's default when it names none. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * Why a webhook URL is refused, or null: it must be http(s), and unless private addresses are
 * allowed, name port 80 or 443 and a host that resolves only to public addresses.
 */
export async function refusedUrl(url: string, allowPrivate: boolean): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an http:// or https:// URL";
  if (parsed.username || parsed.password) return "must not carry a user name or password";
  if (allowPrivate) return null;
  if (!WEBHOOK_PORTS.includes(portOf(parsed))) return "must use port 80 or 443 (or none)";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return NOT_PUBLIC;
  }
  return addresses.length === 0 || addresses.some(isPrivateAddress) ? NOT_PUBLIC : null;
}
