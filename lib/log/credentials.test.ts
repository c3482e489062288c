import { describe, expect, it } from "vitest";
import { maskCredentials } from "./credentials.ts";

const KEY = "svc_sk_0123456789abcdefghijklmnopQRSTUV";
const SECRET = KEY.slice("svc_sk_".length);

describe("credentials in a logged path", () => {
  it("masks a key, plain or percent-encoded (once, twice, partly, in any case)", () => {
    for (const path of [
      `/api/v1/events/${KEY}`,
      `/api/v1/events/${KEY.replaceAll("_", "%5F")}`,
      `/api/v1/events/${KEY.replaceAll("_", "%5f")}`,
      `/api/v1/events/${KEY.replaceAll("_", "%255F")}`,
      `/api/v1/events/svc_sk_%30${SECRET.slice(1)}`,
      `/api/v1/events/%73%76%63%5f%73%6b%5f${SECRET}`,
    ]) {
      const masked = maskCredentials(path, "***");
      expect(masked, path).toBe("/api/v1/events/svc_sk_***");
      expect(masked).not.toContain(SECRET.slice(1));
    }
  });

  it("keeps a path without a credential as it came, encoded or malformed", () => {
    for (const path of ["/api/v1/events/e-1", "/api/v1/events/a%20b", "/api/v1/events/%E0%A4%A", "/api/v1/%zz"]) {
      expect(maskCredentials(path, "***")).toBe(path);
    }
  });
});
