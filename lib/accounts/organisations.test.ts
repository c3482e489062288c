import { describe, expect, it } from "vitest";
import { slugify } from "./organisations.ts";

describe("organisation slugs", () => {
  it.each([
    ["Acme Odds", "acme-odds"],
    ["  Société Générale des Paris  ", "societe-generale-des-paris"],
    ["Bet & Go!!", "bet-go"],
    ["日本", "organisation"],
  ])("%j becomes %j", (name, slug) => expect(slugify(name)).toBe(slug));
});
