import type { Sport } from "../db/schema/index.ts";
import { LINEUP_POSITIONS } from "../sports.ts";
import { seededRandom } from "./random.ts";

// A fictional world for the simulator: invented leagues, clubs and players, so nothing it shows
// can be mistaken for a real result.
const CITIES = [
  "Ashford",
  "Bramley",
  "Carrow",
  "Dunmore",
  "Eastleigh",
  "Fairhaven",
  "Glenbrook",
  "Harlow",
  "Ironbridge",
  "Kingsport",
  "Lakemont",
  "Marlow",
  "Northgate",
  "Oakridge",
  "Portland Bay",
  "Queensferry",
  "Redhill",
  "Silverton",
  "Thornbury",
  "Upton",
  "Valemont",
  "Westbrook",
  "Yarrow",
  "Zephyr Point",
];
const FIRST = [
  "Alex",
  "Ben",
  "Carlos",
  "Daniel",
  "Elias",
  "Felix",
  "Gabriel",
  "Hugo",
  "Ivan",
  "Jonas",
  "Kai",
  "Luca",
  "Mateo",
  "Nico",
  "Oscar",
  "Pablo",
  "Rafael",
  "Samir",
  "Tomas",
  "Victor",
  "Yusuf",
  "Zane",
  "Leon",
  "Marco",
];
const FIRST_WOMEN = [
  "Ana",
  "Bianca",
  "Clara",
  "Daria",
  "Elena",
  "Freya",
  "Greta",
  "Hana",
  "Iris",
  "Julia",
  "Katya",
  "Lena",
  "Maya",
  "Nora",
  "Olga",
  "Petra",
  "Rosa",
  "Sofia",
  "Tara",
  "Vera",
  "Yara",
  "Zoe",
  "Lucia",
  "Mila",
];
const LAST = [
  "Almeida",
  "Berg",
  "Castillo",
  "Dimitrov",
  "Eriksen",
  "Fontaine",
  "Garcia",
  "Hansen",
  "Ivanov",
  "Jensen",
  "Kowalski",
  "Lindqvist",
  "Moreau",
  "Novak",
  "Okafor",
  "Petrov",
  "Quinn",
  "Rossi",
  "Silva",
  "Tanaka",
  "Urban",
  "Varga",
  "Walker",
  "Young",
  "Zimmer",
  "Marin",
  "Costa",
  "Keller",
  "Bauer",
  "Horvat",
];
const HANDLES = [
  "blitz",
  "cobra",
  "dusk",
  "ember",
  "frost",
  "ghost",
  "havoc",
  "ion",
  "jolt",
  "karma",
  "lynx",
  "mako",
  "nova",
  "onyx",
  "pulse",
  "quill",
  "rift",
  "sable",
  "talon",
  "umbra",
  "vex",
  "wisp",
  "xeno",
  "zen",
];

type Competition = { name: string; country: string | null; sides: string[] };

const SUFFIX: Record<Exclude<Sport, "tennis" | "cs2">, string[]> = {
  soccer: ["FC", "United", "City", "Athletic", "Rovers", "Wanderers"],
  basketball: ["Hawks", "Comets", "Lynx", "Titans", "Storm", "Falcons"],
  "american-football": ["Rangers", "Stallions", "Miners", "Pilots", "Bears", "Rebels"],
  "ice-hockey": ["Wolves", "Blades", "Huskies", "Glaciers", "Owls", "Kings"],
  baseball: ["Pioneers", "Mariners", "Foxes", "Sluggers", "Cardinals", "Aces"],
};
const LEAGUES: Record<Sport, [string, string | null][]> = {
  soccer: [
    ["Premier Division", "Northland"],
    ["Continental Cup", null],
  ],
  basketball: [
    ["National Basketball League", "Northland"],
    ["Euro Basketball Series", null],
  ],
  tennis: [
    ["Harbour Open (ATP 500)", null],
    ["Lakemont Classic (WTA 500)", null],
    ["Crownfield Championships (Grand Slam, men's singles)", null],
  ],
  "american-football": [
    ["Premier Football League", "Northland"],
    ["College Bowl Series", "Northland"],
  ],
  "ice-hockey": [
    ["Northern Hockey League", "Northland"],
    ["Alpine Ice League", null],
  ],
  baseball: [
    ["Grand Baseball League", "Northland"],
    ["Pacific Baseball League", null],
  ],
  cs2: [
    ["Major Championship", null],
    ["Pro Series Europe", null],
  ],
};

function sidesOf(sport: Sport, league: number, name: string): string[] {
  const rng = seededRandom(`${sport}:${league}`);
  const out = new Set<string>();
  while (out.size < 16) {
    if (sport === "tennis") {
      out.add(`${rng.pick(name.includes("WTA") ? FIRST_WOMEN : FIRST)} ${rng.pick(LAST)}`);
    } else if (sport === "cs2") {
      out.add(
        `${rng.pick(CITIES).split(" ")[0]} ${rng.pick(["Esports", "Gaming", "Five", "Syndicate", "Collective"])}`,
      );
    } else {
      out.add(`${rng.pick(CITIES)} ${rng.pick(SUFFIX[sport])}`);
    }
  }
  return [...out];
}

const world = new Map<Sport, Competition[]>();

/** The simulator's competitions of a sport, each with its sides (teams, or players for tennis). */
export function competitionsOf(sport: Sport): Competition[] {
  let competitions = world.get(sport);
  if (!competitions) {
    competitions = LEAGUES[sport].map(([name, country], i) => ({ name, country, sides: sidesOf(sport, i, name) }));
    world.set(sport, competitions);
  }
  return competitions;
}

export type LineupPlayer = { number: number; name: string; position: string };

/** A side's starting lineup: always the same players for the same side. */
export function lineupOf(sport: Sport, side: string): LineupPlayer[] {
  const rng = seededRandom(`lineup:${sport}:${side}`);
  if (sport === "tennis") return [{ number: rng.int(1, 150), name: side, position: "S" }];
  const numbers = new Set<number>();
  const names = new Set<string>();
  return LINEUP_POSITIONS[sport].map((position, i) => {
    let number = sport === "cs2" ? i + 1 : position === "GK" || position === "G" ? 1 : rng.int(2, 99);
    while (numbers.has(number)) number = rng.int(2, 99);
    numbers.add(number);
    let name = sport === "cs2" ? rng.pick(HANDLES) : `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
    while (names.has(name))
      name = sport === "cs2" ? `${rng.pick(HANDLES)}${rng.int(1, 9)}` : `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
    names.add(name);
    return { number, name, position };
  });
}
