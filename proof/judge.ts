import type { Database } from "../lib/db/index.ts";
import { storedRequests } from "../testing/organisations.ts";
import type { ApiClient, Follower } from "./load.ts";
import type { Finding } from "./report.ts";

// The checker of the fault suite and the soak: what each client was answered against what the
// database counted, and what each follower received against the revisions its event had.

// Past this, an answer is a hang: the pipeline waits 2 s for the database at most.
export const ANSWER_LIMIT_MS = 5_000;

export type AnswerTotals = {
  requests: number;
  unavailable: number;
  admitted: number;
  stored: number;
  lost: number;
  overCounted: number;
  overCountBound: number;
};

/**
 * Answers: a 200, or a 503 `unavailable` with Retry-After, within ANSWER_LIMIT_MS; never a 500, a
 * 502 or no answer. Counts: what the database holds for each key at least the 200s its client saw,
 * and at most those plus the requests that got no answer (one an instance counted before it was
 * killed) and one per kill (a GET nginx retried on the other).
 */
export async function judgeAnswers(
  db: Database,
  clients: ApiClient[],
  kills: number,
  findings: Finding[],
): Promise<AnswerTotals> {
  const totals: AnswerTotals = {
    requests: 0,
    unavailable: 0,
    admitted: 0,
    stored: 0,
    lost: 0,
    overCounted: 0,
    overCountBound: 0,
  };
  for (const client of clients) {
    totals.requests += client.answers.length;
    const wrong = client.answers.filter(
      (a) => !(a.status === 200 || (a.status === 503 && a.code === "unavailable" && a.retryAfter !== undefined)),
    );
    const slow = client.answers.filter((a) => a.ms > ANSWER_LIMIT_MS);
    totals.unavailable += client.answers.filter((a) => a.status === 503).length;
    if (wrong.length) {
      const kinds = [
        ...new Set(wrong.map((a) => `${a.status}${a.code ? ` ${a.code}` : ""}${a.error ? ` ${a.error}` : ""}`)),
      ];
      findings.push({
        check: client.name,
        problem: `${wrong.length} answers neither 200 nor 503 unavailable with Retry-After`,
        detail: kinds.join(", "),
      });
    }
    if (slow.length)
      findings.push({ check: client.name, problem: `${slow.length} answers took longer than ${ANSWER_LIMIT_MS} ms` });
    const seen = client.answers.filter((a) => a.status === 200).length;
    const unanswered = client.answers.filter((a) => a.status === 0 || a.status === 502).length;
    const count = await storedRequests(db, client.keyId);
    totals.admitted += seen;
    totals.stored += count;
    const bound = unanswered + kills;
    totals.overCountBound += bound;
    if (count < seen) {
      totals.lost += seen - count;
      findings.push({
        check: client.name,
        problem: `${seen - count} answered requests were not counted`,
        detail: `seen ${seen}, stored ${count}`,
      });
    } else {
      totals.overCounted += count - seen;
      if (count - seen > bound) {
        findings.push({
          check: client.name,
          problem: `counted ${count - seen} more than it answered (bound ${bound})`,
          detail: `seen ${seen}, stored ${count}`,
        });
      }
    }
  }
  return totals;
}

export type StreamTotals = { messages: number; missed: number; resyncs: number; reconnects: number };

/**
 * Streams: ids strictly increasing on every follower, every id a revision of its event (or a
 * snapshot), every revision it did not receive covered by a snapshot after it (a resync, or the
 * first snapshot of a new connection), and the event's last revision received.
 */
export function judgeStreams(
  followers: { follower: Follower; revisions: readonly number[] }[],
  findings: Finding[],
): StreamTotals {
  const totals: StreamTotals = { messages: 0, missed: 0, resyncs: 0, reconnects: 0 };
  for (const { follower, revisions } of followers) {
    const { ids, snapshots } = follower;
    totals.messages += ids.length;
    totals.reconnects += follower.reconnects;
    totals.resyncs += follower.resyncs;
    const known = new Set(revisions);
    const received = new Set(ids);
    // Where in `revisions` the previous id falls: both only grow, so one pass finds every gap.
    let cursor = 0;
    let previous: number | undefined;
    for (const id of ids) {
      if (previous !== undefined && id <= previous) {
        findings.push({ check: follower.name, problem: `id ${id} came after ${previous}` });
        previous = id;
        continue;
      }
      while (cursor < revisions.length && revisions[cursor]! <= (previous ?? -1)) cursor++;
      // A snapshot stands for everything up to its id; any other message must follow on without a gap.
      if (previous !== undefined && !snapshots.has(id)) {
        const skipped: number[] = [];
        for (let i = cursor; i < revisions.length && revisions[i]! < id; i++) {
          if (!received.has(revisions[i]!)) skipped.push(revisions[i]!);
        }
        if (skipped.length) {
          totals.missed += skipped.length;
          findings.push({
            check: follower.name,
            problem: `${skipped.length} revisions missed without a resync`,
            detail: skipped.slice(0, 10).join(", "),
          });
        }
      }
      if (!snapshots.has(id) && !known.has(id))
        findings.push({ check: follower.name, problem: `id ${id} is not a revision of its event` });
      previous = id;
    }
    const last = revisions.at(-1);
    if (last !== undefined && (previous ?? 0) < last) {
      totals.missed += revisions.filter((r) => r > (previous ?? 0)).length;
      findings.push({
        check: follower.name,
        problem: `never received revision ${last}, its event's last (its last id: ${previous})`,
      });
    }
  }
  return totals;
}
