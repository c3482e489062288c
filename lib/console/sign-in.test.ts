import { describe, expect, it } from "vitest";
import { clientAddress } from "./sign-in.ts";

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
