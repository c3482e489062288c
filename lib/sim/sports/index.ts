import type { Sport } from "../../db/schema/index.ts";
import type { SportModel } from "../model.ts";
import { americanFootball } from "./american-football.ts";
import { baseball } from "./baseball.ts";
import { basketball } from "./basketball.ts";
import { cs2 } from "./cs2.ts";
import { iceHockey } from "./ice-hockey.ts";
import { soccer } from "./soccer.ts";
import { tennis } from "./tennis.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each model has its own state type
export const MODELS: Record<Sport, SportModel<any>> = {
  soccer,
  basketball,
  tennis,
  "american-football": americanFootball,
  "ice-hockey": iceHockey,
  baseball,
  cs2,
};
