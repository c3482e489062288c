// The sports' display names live with the rest of what the service knows of each sport.
export { SPORT_NAMES } from "../lib/sports.ts";
