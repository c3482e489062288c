import { existsSync } from "node:fs";
import { makePgliteTemplate } from "./data-dirs.ts";

export default async function setup(): Promise<() => void> {
  if (!existsSync(".next/BUILD_ID")) {
    throw new Error("Integration tests run the built server: run `npm run build` first (`npm test` does).");
  }
  return makePgliteTemplate();
}
