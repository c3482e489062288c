import { describe, expect, it } from "vitest";
import { relyingParty } from "./passkeys.ts";

describe("the passkeys' relying party", () => {
  it("is the host name and origin of the service's address, path and port aside", () => {
    expect(relyingParty("https://data.example.com/")).toEqual({
      id: "data.example.com",
      origin: "https://data.example.com",
      name: "Sports Event Data",
    });
    expect(relyingParty("http://localhost:3300")).toMatchObject({ id: "localhost", origin: "http://localhost:3300" });
  });
});
