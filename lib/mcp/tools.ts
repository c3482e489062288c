import { z } from "zod";
import {
  AsOfQuery,
  describeKey,
  EventPath,
  getEvent,
  getEventOdds,
  getLineups,
  listChanges,
  listEvents,
  listOdds,
  marketHistory,
  OddsQuery,
  type Endpoint,
} from "./api-seam.ts";
import { keyHint } from "../keys/format.ts";
import {
  accountSummary,
  boardSummary,
  changesSummary,
  eventOddsSummary,
  eventsSummary,
  eventSummary,
  lineupsSummary,
  marketHistorySummary,
  stateSummary,
  type Answer,
} from "./summaries.ts";

// The tools: each a face of one operation of the API, its arguments that operation's path and
// query parameters (the zod schemas the OpenAPI document is made of), its call one request of
// that operation, counted and refused as the same request over HTTP would be.

/** One request of an operation: which, its path (what the API's router finds it by), path parameters and query. */
export type OperationCall = {
  operationId: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
};

export type Tool = {
  name: string;
  title: string;
  description: string;
  /** The arguments, as the operation's parameters. */
  input: z.ZodObject;
  /** The `{data, meta}` of a success, as the operation answers it. */
  output: z.ZodType;
  call(args: Record<string, unknown>): OperationCall;
  /** What of the answer the assistant is shown, when not all of it. */
  shown?(answer: Answer): Answer;
  summary(answer: Answer): string;
};

/** An argument as a query string carries it: the API parses and refuses it as it would over HTTP. */
function argumentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

/** The request of `endpoint` these arguments make: path parameters by name, everything else in the query. */
export function operationCall(endpoint: Endpoint, args: Record<string, unknown>): OperationCall {
  const pathNames = Object.keys(endpoint.params?.shape ?? {});
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (pathNames.includes(name)) params[name] = argumentText(value);
    else query.append(name, argumentText(value));
  }
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
  return { operationId: endpoint.operationId, path, params, query };
}

/** The operation's own parameters, path first, as one object of arguments. */
function parametersOf(endpoint: Endpoint): z.ZodObject {
  return z.strictObject({ ...endpoint.params?.shape, ...endpoint.query.shape });
}

function face(endpoint: Endpoint, tool: Pick<Tool, "name" | "title" | "description" | "summary" | "shown">): Tool {
  return {
    ...tool,
    input: parametersOf(endpoint),
    output: endpoint.response,
    call: (args) => operationCall(endpoint, args),
  };
}

const COUNTED = "One counted request.";

// The key is its holder's, and in a transcript it is anyone's who reads it: the hint names it.
const withKeyHint = ({ data, meta }: Answer): Answer => {
  const key = data as { key: string };
  return { data: { ...key, key: keyHint(key.key) }, meta };
};

// The board at a moment, or one event with its markets: `as_of` is required here (sent empty when
// missing, so the API's own check refuses it), and `id` picks the event.
const stateInput = z.strictObject({
  as_of: AsOfQuery.shape.as_of.unwrap(),
  id: EventPath.shape.id.optional().describe("An event's id: that event with its markets; omit it for the board"),
  sport: OddsQuery.shape.sport.describe("For the board only: one sport (default: every sport the key covers)"),
  type: OddsQuery.shape.type,
});

const stateAsOf: Tool = {
  name: "state_as_of",
  title: "The board or an event at a moment",
  description:
    "What was true at a moment of the revision history: with `id`, that event with its markets (any state); " +
    "without, the board (every event in play with its markets, by `sport` and `type`). `as_of` is a time (ISO 8601, " +
    "UTC) or a revision (`meta.revision` of any answer). History older than `history_seconds` (account_status) is " +
    `refused with retention_exceeded. ${COUNTED}`,
  input: stateInput,
  output: z.union([getEventOdds.response, listOdds.response]),
  call: ({ id, as_of, ...board }) => {
    const moment = { as_of: as_of ?? "" };
    return id === undefined || id === null
      ? operationCall(listOdds, { ...board, ...moment })
      : operationCall(getEventOdds, { id, ...board, ...moment });
  },
  summary: stateSummary,
};

export const TOOLS: Tool[] = [
  face(describeKey, {
    name: "account_status",
    title: "The key: sports, limits, usage",
    description:
      "The calling key: sandbox or production, the sports it covers, its delay, its limits, and its usage this " +
      "month with when the quota runs out at the month's pace. The key itself is shown as its hint. " +
      `Call it first to learn what the key may read. ${COUNTED}`,
    shown: withKeyHint,
    summary: accountSummary,
  }),
  face(listEvents, {
    name: "list_events",
    title: "Live and upcoming events",
    description:
      "Live and upcoming events of the sports the key covers, in kickoff order, a page of `limit` at a time; pass " +
      `\`meta.next_cursor\` as \`cursor\` for the next page until it is null. ${COUNTED}`,
    summary: eventsSummary,
  }),
  face(getEvent, {
    name: "get_event",
    title: "One event",
    description: `One event by its id, in any state: status, score, clock, period, statistics. ${COUNTED}`,
    summary: eventSummary,
  }),
  face(getLineups, {
    name: "get_lineups",
    title: "Lineups of an event",
    description: `Both sides' players with numbers and positions; empty until published (about an hour before kickoff). ${COUNTED}`,
    summary: lineupsSummary,
  }),
  face(listOdds, {
    name: "get_odds",
    title: "Every event in play with its markets",
    description:
      "Every live (and suspended) event with its markets and prices in decimal odds, by `sport` and market `type`. " +
      `To follow the board after this, call changes_since with this answer's \`meta.revision\`. ${COUNTED}`,
    summary: boardSummary,
  }),
  face(getEventOdds, {
    name: "get_event_odds",
    title: "One event's markets",
    description:
      "One event in any state with its markets: pre-match markets before kickoff, in-play ones while it is live, " +
      `settled ones after; \`type\` keeps one market type. ${COUNTED}`,
    summary: eventOddsSummary,
  }),
  face(listChanges, {
    name: "changes_since",
    title: "What changed since a revision",
    description:
      "How an assistant follows the board: an assistant cannot hold the API's streams open, so it polls this. Pass " +
      "`since` = `meta.revision` of any answer (get_odds first), then `meta.next_since` of each answer; you get " +
      "every change in order (events that changed, came into play or left it, and the markets that moved), none " +
      `missed or repeated. An empty page means nothing changed yet. ${COUNTED}`,
    summary: changesSummary,
  }),
  stateAsOf,
  face(marketHistory, {
    name: "market_history",
    title: "One market's price history",
    description:
      "Every change of one market of an event, oldest first, each with its prices, status and line: what a chart of " +
      `its movement needs. \`market_id\` is the market's \`id\` from get_event_odds or get_odds. ${COUNTED}`,
    summary: marketHistorySummary,
  }),
];

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
