"use client";

import "./zod-jitless";
import { keepPreviousData, useQueries, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useCallback } from "react";
import type { z } from "zod";
import { EventAnswer, OddsAnswer, Problem } from "@/lib/api/endpoints/schemas";
import type { EventState } from "./event-store";
import { asOfParam } from "./past-moment";
import { MarketHistoryAnswer, type MarketPoint } from "./price-series";
import type { Market } from "./stream-store";

// The event page's reads of the API with the session cookie: the history of each market, the
// event's board row as it was at a moment of the past, and the markets of an event that was over
// before the page opened (its stream answers 204, and GET /odds shows events in play only).

export class ReadError extends Error {
  readonly status: number;
  readonly problem: z.infer<typeof Problem> | null;
  constructor(path: string, status: number, problem: z.infer<typeof Problem> | null) {
    super(problem?.detail ?? `GET ${path} answered ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export async function readAnswer<T>(path: string, answer: z.ZodType<T>): Promise<T> {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) {
    const problem = Problem.safeParse(await response.json().catch(() => null));
    throw new ReadError(path, response.status, problem.success ? problem.data : null);
  }
  return answer.parse(await response.json());
}

/** Tries a failed read again, twice, unless asking again cannot help (a 4xx but a rate limit's 429). */
export function retryUnlessRefused(failures: number, error: Error): boolean {
  const final = error instanceof ReadError && error.status >= 400 && error.status < 500 && error.status !== 429;
  return failures < 2 && !final;
}

const eventPath = (id: string) => `/api/v1/events/${encodeURIComponent(id)}`;

export type Histories = {
  /** Each market's points from `from` on, by market id, once read. */
  points: Readonly<Record<string, readonly MarketPoint[]>>;
  /** The markets whose history could not be read. */
  failed: readonly string[];
  /** Every market's history was answered, or refused. */
  settled: boolean;
  /** The earliest point of any market (ms): where the event's history begins. */
  earliest: number | null;
};

/**
 * Each market's history from `from` (ms), read once: the stream's changes extend it afterwards.
 * `marketIds` must keep its identity while the ids are the same, so that the result does too.
 */
export function useMarketHistories(eventId: string, marketIds: readonly string[], from: number): Histories {
  const combine = useCallback(
    (results: UseQueryResult<MarketPoint[]>[]): Histories => {
      const points: Record<string, readonly MarketPoint[]> = {};
      const failed: string[] = [];
      let earliest: number | null = null;
      for (const [index, result] of results.entries()) {
        const first = result.data?.[0];
        if (result.isError) failed.push(marketIds[index]!);
        if (!result.data) continue;
        points[marketIds[index]!] = result.data;
        if (first) earliest = Math.min(earliest ?? Infinity, Date.parse(first.at));
      }
      return { points, failed, settled: results.every((result) => !result.isPending), earliest };
    },
    [marketIds],
  );
  return useQueries({
    queries: marketIds.map((marketId) => ({
      queryKey: ["market-history", eventId, marketId, from],
      queryFn: async () => {
        const path = `${eventPath(eventId)}/markets/${encodeURIComponent(marketId)}/history?from=${asOfParam(from / 1_000)}`;
        return (await readAnswer(path, MarketHistoryAnswer)).data.points;
      },
      staleTime: Infinity,
      retry: retryUnlessRefused,
    })),
    combine,
  });
}

export type PastRow = {
  moment: number;
  /** The feed revision the answer shows. */
  revision: number;
  event: EventState;
  /** The event's markets on the board at that moment; none when it was not in play then. */
  markets: Market[];
  onBoard: boolean;
};

/**
 * The board row of the event as of `moment` (s): the board's own answer at that moment, and, when
 * the event was not on the board then, the event alone at the same revision.
 */
async function readPastRow(id: string, sport: string, moment: number): Promise<PastRow> {
  const odds = await readAnswer(`/api/v1/odds?sport=${sport}&as_of=${asOfParam(moment)}`, OddsAnswer);
  const row = odds.data.find((event) => event.id === id);
  if (row) {
    const { markets, ...event } = row;
    return { moment, revision: odds.meta.revision, event, markets, onBoard: true };
  }
  const answer = await readAnswer(`${eventPath(id)}?as_of=${odds.meta.revision}`, EventAnswer);
  return { moment, revision: answer.meta.revision, event: answer.data, markets: [], onBoard: false };
}

/** An event's status after which it never changes. */
export const isOver = (event: EventState): boolean => event.status === "finished" || event.status === "cancelled";

/**
 * The markets an event had on the board just before it ended: the board as of a millisecond before
 * its last change (`updated_at`, the end), where it was still in play. Their final states come
 * from each market's history. None when it was never in play (cancelled before kickoff).
 */
async function readMarketsBeforeEnd(event: EventState): Promise<Market[]> {
  const before = new Date(Date.parse(event.updated_at) - 1).toISOString();
  const odds = await readAnswer(`/api/v1/odds?sport=${event.sport}&as_of=${before}`, OddsAnswer);
  return odds.data.find((row) => row.id === event.id)?.markets ?? [];
}

export function useMarketsBeforeEnd(event: EventState | undefined) {
  return useQuery({
    queryKey: ["markets-before-end", event?.id],
    queryFn: () => readMarketsBeforeEnd(event!),
    enabled: event !== undefined && isOver(event),
    staleTime: Infinity,
    retry: retryUnlessRefused,
  });
}

/** The past never changes: each moment is read once, and the last one shown while the next loads. */
export function usePastRow(id: string, sport: string, moment: number | null) {
  return useQuery({
    queryKey: ["past-row", id, moment],
    queryFn: () => readPastRow(id, sport, moment!),
    enabled: moment !== null,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
    retry: retryUnlessRefused,
  });
}
