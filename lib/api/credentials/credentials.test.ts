import { describe, expect, it } from "vitest";
import { readCredentials } from "./credentials.ts";
import { decodeCursor, encodeCursor } from "../endpoints/cursor.ts";
import { ApiError } from "../request/errors.ts";

const KEY = "svc_sk_3YeWOuRAwr1LcfmOtnh7RqkQr53gFRLm";
const read = (headers: Record<string, string>, query = "") =>
  readCredentials((name) => headers[name], new URLSearchParams(query));
const codeOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof ApiError ? error.code : "not an ApiError";
  }
  return "no error";
};

describe("readCredentials", () => {
  it("takes the key from either header, the Bearer scheme in any case", () => {
    expect(read({ authorization: `Bearer ${KEY}` })).toBe(KEY);
    expect(read({ authorization: `bearer  ${KEY} ` })).toBe(KEY);
    expect(read({ "x-api-key": KEY })).toBe(KEY);
    expect(read({ authorization: `Bearer ${KEY}`, "x-api-key": KEY })).toBe(KEY);
  });

  it("refuses two different keys, another scheme, no key, and any key in the query string", () => {
    expect(codeOf(() => read({ authorization: `Bearer ${KEY}`, "x-api-key": `${KEY}x` }))).toBe(
      "conflicting_credentials",
    );
    expect(codeOf(() => read({ authorization: "Basic dXNlcjpwYXNz" }))).toBe("invalid_api_key");
    expect(codeOf(() => read({}))).toBe("missing_api_key");
    expect(codeOf(() => read({ "x-api-key": "  " }))).toBe("missing_api_key");
    expect(codeOf(() => read({ "x-api-key": KEY }, "api_key=abc"))).toBe("invalid_api_key");
    expect(codeOf(() => read({ "x-api-key": KEY }, `q=${KEY}`))).toBe("invalid_api_key");
    expect(read({ "x-api-key": KEY }, "sport=soccer")).toBe(KEY);
  });
});

describe("cursors", () => {
  it("round-trip a list position and refuse anything else", () => {
    const position = { kickoff: "2026-11-21T18:00:00.000Z", id: "soc-bdrn-983512" };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    for (const bad of [
      "",
      "garbage",
      "1",
      `2${encodeCursor(position).slice(1)}`,
      `1${Buffer.from("[1,2]").toString("base64url")}`,
    ]) {
      expect(
        codeOf(() => decodeCursor(bad)),
        bad,
      ).toBe("invalid_parameter");
    }
  });
});
