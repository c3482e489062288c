import { describe, expect, it } from "vitest";
import { shownKeyState } from "./states.ts";

const at = Date.parse("2026-11-21T12:00:00Z");

describe("the state a key is shown in", () => {
  it("is revoked or expired as the key is, whatever its expiry", () => {
    expect(shownKeyState({ status: "revoked", expiresAt: "2026-11-22T00:00:00Z" }, at)).toBe("revoked");
    expect(shownKeyState({ status: "expired", expiresAt: "2026-11-21T11:00:00Z" }, at)).toBe("expired");
  });

  it("is expiring within the week before an active key's expiry, and active before that or without one", () => {
    expect(shownKeyState({ status: "active", expiresAt: null }, at)).toBe("active");
    expect(shownKeyState({ status: "active", expiresAt: "2026-11-21T13:00:00Z" }, at)).toBe("expiring");
    expect(shownKeyState({ status: "active", expiresAt: "2026-11-28T12:00:00Z" }, at)).toBe("expiring");
    expect(shownKeyState({ status: "active", expiresAt: new Date("2026-11-28T12:00:01Z") }, at)).toBe("active");
  });
});
