import { ProtocolError, ProtocolErrorCode, type GetPromptResult, type Prompt } from "@modelcontextprotocol/server";

// Prompts that start an assistant on the two questions a key holder asks most: what is on now,
// and why did this price move. Each only says which tools to call and what to make of them.

type Arguments = Record<string, string | undefined>;
type Template = Prompt & { text(args: Record<string, string>): string };

const TEMPLATES: Template[] = [
  {
    name: "live_summary",
    title: "Summarise what is live in a sport",
    description: "The events in play in one sport: score, clock and the match odds, in a few lines.",
    arguments: [{ name: "sport", description: "A sport the key covers, such as soccer or tennis", required: true }],
    text: ({ sport }) =>
      `Summarise what is live in ${sport} right now. Call get_odds with sport=${sport} and type=match_winner ` +
      "(every event in play with its match odds), and for each event give the sides, the score, the period and " +
      "clock, and the favourite with its price. Keep it to one line an event. If `meta.sandbox` is true, say that " +
      "the data is the feed as it was `meta.delay_seconds` ago. If the call is refused, tell me its title and " +
      "detail and what to do about it (for sport_not_covered: which sports the key covers, from account_status).",
  },
  {
    name: "explain_market_movement",
    title: "Explain a market's movement",
    description: "How one market's prices moved, and what in the game moved them.",
    arguments: [
      { name: "event_id", description: "The event's id", required: true },
      { name: "market_id", description: "The market's id, from get_event_odds or get_odds", required: true },
    ],
    text: ({ event_id, market_id }) =>
      `Explain how market ${market_id} of event ${event_id} moved. Call market_history with id=${event_id} and ` +
      `market_id=${market_id} for every price it had, and get_event with id=${event_id} for the game as it is. ` +
      "Describe the moves that matter (the biggest changes of implied probability, 1 / price, and when the market " +
      "was suspended) and relate them to what happened in the game: a score changes prices at once, and a market is " +
      "suspended for a few seconds after it. Say when you are inferring rather than reading it from the data.",
  },
];

export const PROMPTS: Prompt[] = TEMPLATES.map(({ name, title, description, arguments: args }) => ({
  name,
  title,
  description,
  arguments: args,
}));

export function getPrompt(name: string, args: Arguments = {}): GetPromptResult {
  const template = TEMPLATES.find((t) => t.name === name);
  if (!template)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt ${name}: prompts/list names them.`);
  const given: Record<string, string> = {};
  for (const argument of template.arguments ?? []) {
    const value = args[argument.name]?.trim();
    if (!value && argument.required) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The prompt ${name} needs the argument ${argument.name}.`,
      );
    }
    if (value) given[argument.name] = value;
  }
  return {
    description: template.description,
    messages: [{ role: "user", content: { type: "text", text: template.text(given) } }],
  };
}
