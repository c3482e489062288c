import { FeedMirror } from "../../feed/mirror.ts";
import { ApiError } from "../request/errors.ts";
import type { Reply, RequestContext } from "../request/pipeline.ts";
import type { Moment } from "./queries.ts";

// The feed at a moment of the revision history (`as_of`, a market's history): which revision a
// moment is, whether the key may see it and the history still holds it, and the feed as it was.

/** The latest moment a key sees: now, or for a sandbox key its delay ago. */
export function latestMoment(context: RequestContext): Date {
  return new Date(context.at.getTime() - context.delaySeconds * 1000);
}

/** The oldest moment the history is kept for. */
export function oldestMoment(context: RequestContext): Date {
  return new Date(context.at.getTime() - context.historySeconds * 1000);
}

/** 400: a moment later than the key sees; a sandbox key is told why. */
export function laterThanSeen(context: RequestContext, param: string, what: string, latest: string): ApiError {
  const detail = context.sandbox
    ? `A sandbox key sees the feed as it was ${context.delaySeconds} seconds ago: ${what} is later than that (at most ${latest}).`
    : `${what} is later than now: the latest is ${latest}.`;
  return new ApiError("invalid_parameter", detail, { errors: [{ param, message: `at most ${latest}` }] });
}

/** 410: a moment older than the history kept. */
export function beyondHistory(context: RequestContext, what: string): ApiError {
  return new ApiError(
    "retention_exceeded",
    `${what} is older than the history kept (${context.historySeconds} seconds, since ` +
      `${oldestMoment(context).toISOString()}): ask for a later moment, or read the current state.`,
  );
}

/**
 * The revision a moment shows this key: for a time, the newest revision recorded at or before it
 * (nothing recorded later); never beyond the key's view (400), never older than the history holds
 * whole (410).
 */
export async function revisionOf(context: RequestContext, moment: Moment, param: string): Promise<number> {
  const through = context.view.revision;
  if (moment.at) {
    const what = `${param}=${moment.at.toISOString()}`;
    const latest = latestMoment(context);
    if (moment.at > latest) throw laterThanSeen(context, param, what, latest.toISOString());
    if (moment.at < oldestMoment(context)) throw beyondHistory(context, what);
    const { revision, prunedThrough } = await context.history.historyAt(moment.at, through);
    // Pruning went past the moment (it keeps each event's newest state, not every state before).
    if (revision < prunedThrough) throw beyondHistory(context, what);
    return revision;
  }
  const what = `${param}=${moment.revision}`;
  if (moment.revision > through) throw laterThanSeen(context, param, what, `revision ${through}`);
  if (moment.revision === through) return through;
  // The state at a revision is whole only from the one the oldest kept moment shows on.
  const oldest = await context.history.historyAt(oldestMoment(context), through);
  const pruned = moment.revision < oldest.prunedThrough;
  if (moment.revision < oldest.revision || pruned) throw beyondHistory(context, what);
  return moment.revision;
}

/**
 * An answer served from the feed as it was at `moment` (only the events of `eventIds`, when
 * given), with `meta.revision` the revision it shows. The key's own view when it is at that
 * revision, so the present is served from memory; else a mirror of the history's states at it.
 * `serve` runs right after the check, before the view can move on.
 */
export async function servedAt(
  context: RequestContext,
  moment: Moment,
  serve: (view: FeedMirror) => Reply,
  eventIds?: readonly string[],
): Promise<Reply> {
  const revision = await revisionOf(context, moment, "as_of");
  let view = context.view;
  if (revision !== view.revision) {
    const states = await context.history.snapshotThrough(revision, eventIds);
    view = new FeedMirror();
    view.reset(
      revision,
      states.reduce((at, s) => (s.recordedAt > at ? s.recordedAt : at), new Date(0)),
      states,
    );
  }
  const reply = serve(view);
  return { ...reply, meta: { ...reply.meta, revision } };
}
