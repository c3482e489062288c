import { describe, expect, it } from "vitest";
import { AllowList, MAX_ALLOWED_NETWORKS, parseAllowlist, parseNetwork } from "./allowlist.ts";

describe("an IP allowlist entry", () => {
  it("is a network in CIDR notation, IPv4 or IPv6, or one address as its /32 or /128", () => {
    expect(parseNetwork("203.0.113.0/24")).toEqual({ cidr: "203.0.113.0/24" });
    expect(parseNetwork(" 2001:DB8::/32 ")).toEqual({ cidr: "2001:db8::/32" });
    expect(parseNetwork("198.51.100.7")).toEqual({ cidr: "198.51.100.7/32" });
    expect(parseNetwork("::1")).toEqual({ cidr: "::1/128" });
    expect(parseNetwork("0.0.0.0/0")).toEqual({ cidr: "0.0.0.0/0" });
  });

  it("refuses what is not an address, and a prefix beyond its family's length", () => {
    for (const bad of ["example.com", "203.0.113", "256.1.1.1/8", "203.0.113.0/", "10.0.0.0/-1", "10.0.0.0/8/8"]) {
      expect(parseNetwork(bad), bad).toHaveProperty("error");
    }
    expect(parseNetwork("10.0.0.0/33")).toEqual({ error: expect.stringMatching(/from 0 to 32/) });
    expect(parseNetwork("2001:db8::/129")).toEqual({ error: expect.stringMatching(/from 0 to 128/) });
    expect(parseNetwork("10.0.0.0/1e1")).toHaveProperty("error");
  });
});

describe("an IP allowlist as entered", () => {
  it("takes one network a line, or separated by commas or spaces, without repeats", () => {
    expect(parseAllowlist("203.0.113.0/24\n2001:db8::/32, 198.51.100.7  203.0.113.0/24\n")).toEqual({
      networks: ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7/32"],
    });
    expect(parseAllowlist(["10.0.0.0/8", "10.1.0.0/16"])).toEqual({ networks: ["10.0.0.0/8", "10.1.0.0/16"] });
    expect(parseAllowlist("  \n ")).toEqual({ networks: [] });
  });

  it("names every entry that is wrong, and refuses more networks than a key may list", () => {
    expect(parseAllowlist("10.0.0.0/8, nonsense, 10.0.0.0/40")).toEqual({
      errors: [expect.stringMatching(/"nonsense" is not/), expect.stringMatching(/"10.0.0.0\/40"/)],
    });
    const many = Array.from({ length: MAX_ALLOWED_NETWORKS + 1 }, (_, i) => `10.0.${i}.0/24`);
    expect(parseAllowlist(many)).toEqual({ errors: [expect.stringMatching(/At most 50 networks/)] });
    expect(parseAllowlist(many.slice(1))).toHaveProperty("networks");
  });
});

describe("matching a client address", () => {
  const list = new AllowList(["203.0.113.0/24", "198.51.100.7/32", "2001:db8:aa::/48"]);

  it("allows an address in one of the networks, and nothing else", () => {
    expect(list.allows("203.0.113.0")).toBe(true);
    expect(list.allows("203.0.113.255")).toBe(true);
    expect(list.allows("203.0.114.0")).toBe(false);
    expect(list.allows("198.51.100.7")).toBe(true);
    expect(list.allows("198.51.100.8")).toBe(false);
    expect(list.allows("2001:db8:aa:ffff::1")).toBe(true);
    expect(list.allows("2001:DB8:AA::1")).toBe(true);
    expect(list.allows("2001:db8:ab::1")).toBe(false);
  });

  it("matches an IPv4 address reached over IPv6 as itself, and an address with a zone by its address", () => {
    expect(list.allows("::ffff:203.0.113.9")).toBe(true);
    expect(list.allows("::ffff:192.0.2.1")).toBe(false);
    expect(new AllowList(["fe80::/10"]).allows("fe80::1%eth0")).toBe(true);
  });

  it("allows nothing that is not an address, and nothing at all with an empty list", () => {
    for (const address of ["unknown", "", "203.0.113.0/24", "localhost"]) expect(list.allows(address)).toBe(false);
    expect(new AllowList([]).allows("203.0.113.1")).toBe(false);
  });

  it("lets the whole Internet through only when a list says so", () => {
    const anyV4 = new AllowList(["0.0.0.0/0"]);
    expect(anyV4.allows("192.0.2.1")).toBe(true);
    expect(anyV4.allows("2001:db8::1")).toBe(false);
  });
});
