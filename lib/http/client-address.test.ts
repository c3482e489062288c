import { describe, expect, it } from "vitest";
import { clientAddress, clientNetwork } from "./client-address.ts";

describe("the client's address for sign-in throttling", () => {
  it("is the connection's peer (last in X-Forwarded-For, as server.ts puts it) when no proxy is trusted", () => {
    expect(clientAddress("203.0.113.9, 10.0.0.1", 0)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", 0)).toBe("10.0.0.1");
  });

  it("is the address the outermost trusted load balancer saw", () => {
    // client-sent junk, the client as the load balancer saw it, the load balancer itself
    expect(clientAddress("1.1.1.1, 203.0.113.9, 10.0.0.1", 1)).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9, 10.0.0.2, 10.0.0.1", 2)).toBe("203.0.113.9");
  });

  it("never fails on a short or missing header", () => {
    expect(clientAddress("10.0.0.1", 3)).toBe("10.0.0.1");
    expect(clientAddress(undefined, 0)).toBe("unknown");
    expect(clientAddress(" , ", 0)).toBe("unknown");
  });
});

describe("the network a client address is counted as", () => {
  it("is an IPv4 address itself, mapped or not", () => {
    expect(clientNetwork("203.0.113.9")).toBe("203.0.113.9");
    expect(clientNetwork("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  it("is an IPv6 address's /64, however it is written", () => {
    expect(clientNetwork("2001:db8:0:1::5")).toBe("2001:db8:0:1::/64");
    expect(clientNetwork("2001:0db8:0000:0001:ffff:1:2:3")).toBe("2001:db8:0:1::/64");
    expect(clientNetwork("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(clientNetwork("::1")).toBe("0:0:0:0::/64");
  });

  it("leaves anything else as it is", () => {
    expect(clientNetwork("unknown")).toBe("unknown");
  });
});
