import { existsSync } from "node:fs";

export default function setup(): void {
  if (!existsSync(".next/BUILD_ID")) {
    throw new Error("Integration tests run the built server: run `npm run build` first (`npm test` does).");
  }
}
