import type { Sport } from "../../db/schema/index.ts";
import type { EventDocument, FeedMirror } from "../../feed/mirror.ts";
import { ApiError } from "../request/errors.ts";
import type { RequestContext } from "../request/pipeline.ts";

// What a key may see: the sports of its sandbox or plan, in the view of the feed it is served.

/** The sports a request covers: the one asked for (if the key covers it), else all of the key's. */
export function coveredSports(context: RequestContext, sport: Sport | undefined): Sport[] {
  if (sport === undefined) return context.key.sports;
  if (!context.key.sports.includes(sport)) throw notCovered(context, sport);
  return [sport];
}

function notCovered(context: RequestContext, sport: Sport): ApiError {
  const covered = context.key.sports.join(", ") || "no sport";
  return new ApiError(
    "sport_not_covered",
    context.sandbox
      ? `This sandbox key covers ${covered} only, not ${sport}.`
      : context.key.sportScope
        ? `This key is limited to ${covered} (its sport scope, set in the console), not ${sport}.`
        : `The plan of this key covers ${covered}, not ${sport}. A plan with more sports is chosen in the console.`,
  );
}

/** An event of the key's view (or of the feed at a past moment), if the key covers its sport. */
export function eventOf(context: RequestContext, id: string, view: FeedMirror = context.view): EventDocument {
  const document = view.get(id);
  if (!document) {
    throw new ApiError(
      "not_found",
      view !== context.view
        ? `No event ${id} at revision ${view.revision}.`
        : context.sandbox
          ? `No event ${id} ${context.delaySeconds} seconds ago (a sandbox key sees the feed as it was then).`
          : `No event ${id}.`,
    );
  }
  if (!context.key.sports.includes(document.event.sport)) throw notCovered(context, document.event.sport);
  return document;
}
