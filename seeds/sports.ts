import type { Sport } from "../lib/db/schema/index.ts";

export const SPORT_NAMES: Record<Sport, string> = {
  soccer: "Soccer",
  basketball: "Basketball",
  tennis: "Tennis",
  "american-football": "American football",
  "ice-hockey": "Ice hockey",
  baseball: "Baseball",
  cs2: "Counter-Strike 2",
};
