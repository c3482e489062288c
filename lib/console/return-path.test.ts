import { describe, expect, it } from "vitest";
import { returnPath, signInErrorMessage } from "./return-path.ts";

describe("where sign-in returns to", () => {
  it("is a path of this site, with its query", () => {
    expect(returnPath("/console/keys")).toBe("/console/keys");
    expect(returnPath("/board/ev_1?sport=soccer")).toBe("/board/ev_1?sport=soccer");
    expect(returnPath(undefined)).toBe("/console");
    expect(returnPath(["/console/keys", "//evil.example"])).toBe("/console");
  });

  it("is never another origin, however the value is disguised", () => {
    for (const next of [
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "\\/evil.example",
      "https://evil.example/console",
      "javascript:alert(1)",
      "/%09/evil.example",
      // Dot segments that parsing removes, leaving `//evil.example` or `/\evil.example`.
      "/.//evil.example",
      "/%2e//evil.example",
      "/%2E%2E//evil.example",
      "/a/..//evil.example",
      "/./%5Cevil.example",
      "/%5Cevil.example",
      "/%5C%5Cevil.example",
      "/%2F/evil.example",
      "/./\\evil.example",
    ]) {
      const path = returnPath(next);
      expect(new URL(path, "https://data.example.com").origin, next).toBe("https://data.example.com");
      expect(path.startsWith("//") || path.startsWith("/\\"), next).toBe(false);
      expect(decodeURIComponent(path).startsWith("//") || decodeURIComponent(path).startsWith("/\\"), next).toBe(false);
      expect(path, next).toBe("/console");
    }
  });
});

describe("the sign-in page's error message", () => {
  it("is one of ours for a known code, and nothing for any other text", () => {
    expect(signInErrorMessage("CredentialsSignin")).toBe("Wrong e-mail or password.");
    expect(signInErrorMessage("Your account is suspended: call +1 555 0100")).toBeNull();
    expect(signInErrorMessage("toString")).toBeNull();
    expect(signInErrorMessage(undefined)).toBeNull();
  });
});
