import { describe, expect, it } from "vitest";
import { isPrivateAddress, refusedUrl } from "./addresses.ts";

describe("webhook addresses", () => {
  it("tells the server's own networks from the public internet", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it("refuses private addresses unless allowed, and anything but http(s)", async () => {
    expect(await refusedUrl("http://127.0.0.1:9000/hook", false)).toMatch(/private, loopback or link-local/);
    expect(await refusedUrl("http://[::1]/hook", false)).toMatch(/private/);
    expect(await refusedUrl("http://localhost/hook", false)).toMatch(/private/);
    expect(await refusedUrl("http://127.0.0.1:9000/hook", true)).toBeNull();
    expect(await refusedUrl("https://93.184.216.34/hook", false)).toBeNull();
    expect(await refusedUrl("ftp://93.184.216.34/hook", true)).toMatch(/http/);
    expect(await refusedUrl("https://user:pw@93.184.216.34/", true)).toMatch(/password/);
    expect(await refusedUrl("not a url", true)).toBe("is not a URL");
  });
});
