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
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address is private, loopback, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, "ipv4");
  if (family !== 6) return true;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, "ipv4");
  return PRIVATE.check(address, "ipv6");
}

/**
 * Why a webhook URL is refused, or null: it must be http(s), and unless private addresses are
 * allowed, its host must resolve only to public addresses.
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
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `names a host that does not resolve (${host})`;
  }
  const inside = addresses.find(isPrivateAddress);
  return inside
    ? `is on a private, loopback or link-local address (${inside}); the operator has not allowed those`
    : null;
}
