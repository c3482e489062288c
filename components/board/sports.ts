import type { Sport } from "@/lib/db/schema/values";
import { SPORT_NAMES } from "@/seeds/sports";

export type SportCode = Sport;
/** The sports as the board names them, in the feed's order. */
export const SPORT_LABELS: Record<SportCode, string> = SPORT_NAMES;
