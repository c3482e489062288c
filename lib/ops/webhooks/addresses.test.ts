import { describe, expect, it } from "vitest";
import { embeddedIpv4, isPrivateAddress, NOT_PUBLIC, refusedUrl } from "./addresses.ts";

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

  it("judges an IPv4 address carried in IPv6 as the IPv4 address a packet would reach", () => {
    const carried: [string, string][] = [
      ["64:ff9b::7f00:1", "127.0.0.1"], // NAT64
      ["64:ff9b::10.0.0.1", "10.0.0.1"],
      ["2002:7f00:1::", "127.0.0.1"], // 6to4
      ["2002:a9fe:a9fe::1", "169.254.169.254"],
      ["::7f00:1", "127.0.0.1"], // IPv4-compatible
      ["::127.0.0.1", "127.0.0.1"],
      ["::ffff:0:7f00:1", "127.0.0.1"], // IPv4-translated (SIIT)
      ["::ffff:7f00:1", "127.0.0.1"], // mapped, in hex
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"], // Teredo client (inverted)
    ];
    for (const [address, inside] of carried) {
      expect(embeddedIpv4(address), address).toContain(inside);
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["64:ff9b::808:808", "2002:808:808::1", "::ffff:0:808:808"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
    expect(isPrivateAddress("64:ff9b:1::808:808")).toBe(true);
  });

  it("refuses private addresses unless allowed, and anything but http(s)", async () => {
    expect(await refusedUrl("http://127.0.0.1/hook", false)).toBe(NOT_PUBLIC);
    expect(await refusedUrl("http://[::1]/hook", false)).toBe(NOT_PUBLIC);
    expect(await refusedUrl("http://localhost/hook", false)).toBe(NOT_PUBLIC);
    for (const host of ["[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::7f00:1]", "[::ffff:0:7f00:1]"]) {
      expect(await refusedUrl(`http://${host}/hook`, false), host).toBe(NOT_PUBLIC);
    }
    expect(await refusedUrl("http://127.0.0.1:9000/hook", true)).toBeNull();
    expect(await refusedUrl("https://93.184.216.34/hook", false)).toBeNull();
    expect(await refusedUrl("ftp://93.184.216.34/hook", true)).toMatch(/http/);
    expect(await refusedUrl("https://user:pw@93.184.216.34/", true)).toMatch(/password/);
    expect(await refusedUrl("not a url", true)).toBe("is not a URL");
  });

  it("allows only the web's ports unless private addresses are allowed", async () => {
    expect(await refusedUrl("http://93.184.216.34:80/hook", false)).toBeNull();
    expect(await refusedUrl("https://93.184.216.34:443/hook", false)).toBeNull();
    expect(await refusedUrl("http://93.184.216.34:443/hook", false)).toBeNull();
    for (const port of [22, 25, 6379, 8080]) {
      expect(await refusedUrl(`http://93.184.216.34:${port}/hook`, false)).toMatch(/port 80 or 443/);
    }
    expect(await refusedUrl("http://93.184.216.34:22/hook", true)).toBeNull();
  });

  it("says the same of a private name as of an unresolvable one, never the address", async () => {
    const privateName = await refusedUrl("http://localhost/hook", false);
    const nowhere = await refusedUrl("http://no-such-host.invalid/hook", false);
    expect(privateName).toBe(nowhere);
    expect(privateName).not.toMatch(/127\.0\.0\.1|::1/);
  });
});
