import { isIPv6 } from "node:net";

/**
 * The client's address: the peer of the connection, or with `trustedHops` load balancers in front,
 * the address the outermost of them saw. server.ts puts the peer at the end of X-Forwarded-For.
 */
export function clientAddress(forwardedFor: string | null | undefined, trustedHops: number): string {
  const chain = (forwardedFor ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - 1 - trustedHops)] ?? "unknown";
}

/**
 * The network a client address stands for when counting: an IPv4 address itself (an IPv4-mapped
 * IPv6 one too), an IPv6 address's /64, which one subscriber usually holds whole.
 */
export function clientNetwork(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail] = address.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
