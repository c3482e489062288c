import { describe, expect, it } from "vitest";
import { keySettingsInput } from "../keys/settings.ts";
import { formFields, keySettingsFromForm, utcFromField } from "./actions.ts";

describe("the key settings form", () => {
  it("reads every setting, an empty one as cleared", () => {
    expect(keySettingsFromForm({ keyId: "key_1", "sport:tennis": "on", "sport:soccer": "on" }, false)).toEqual({
      name: null,
      sports: ["tennis", "soccer"],
      allowedIps: null,
      monthlyQuota: null,
      requestsPerSecond: null,
    });
    expect(keySettingsFromForm({ keyId: "key_1", name: "Web app", allowedIps: "10.0.0.0/8" }, false)).toEqual({
      name: "Web app",
      sports: [],
      allowedIps: "10.0.0.0/8",
      monthlyQuota: null,
      requestsPerSecond: null,
    });
  });

  it("leaves the expiry alone when it comes back as shown, and reads the field as UTC", () => {
    const shown = { expiresAtShown: "2026-12-01T10:30" };
    expect(keySettingsFromForm({ ...shown, expiresAt: "2026-12-01T10:30" }, false)).not.toHaveProperty("expiresAt");
    expect(keySettingsFromForm({ ...shown, expiresAt: "2026-12-02T08:00" }, false).expiresAt).toBe("2026-12-02T08:00Z");
    expect(keySettingsFromForm(shown, false).expiresAt).toBeNull();
    expect(keySettingsFromForm({ expiresAt: "2026-12-02T08:00" }, false).expiresAt).toBe("2026-12-02T08:00Z");
  });

  it("reads a key's own limits from the posted form, an emptied one as the plan's", () => {
    const form = new FormData();
    form.set("keyId", "key_1");
    form.set("monthlyQuota", " 5000 ");
    form.set("requestsPerSecond", "");
    expect(keySettingsFromForm(formFields(form), false)).toMatchObject({
      monthlyQuota: "5000",
      requestsPerSecond: null,
    });
    form.set("monthlyQuota", "");
    expect(keySettingsFromForm(formFields(form), false)).toMatchObject({ monthlyQuota: null, requestsPerSecond: null });
    expect(keySettingsInput.parse({ monthlyQuota: "5000", requestsPerSecond: null })).toEqual({
      monthlyQuota: 5000,
      requestsPerSecond: null,
    });
    for (const refused of ["0", "-3", "2.5", "many"]) {
      expect(keySettingsInput.safeParse({ monthlyQuota: refused }).success, refused).toBe(false);
    }
  });

  it("gives a sandbox key's form nothing but the name", () => {
    expect(keySettingsFromForm({ name: "Trial", "sport:tennis": "on", expiresAt: "2026-12-02T08:00" }, true)).toEqual({
      name: "Trial",
    });
  });

  it("passes anything that is not a datetime-local value on for validation to refuse", () => {
    expect(utcFromField("2026-12-02T08:00:30")).toBe("2026-12-02T08:00:30Z");
    expect(utcFromField("tomorrow")).toBe("tomorrow");
  });
});
