"use client";

import {
  startTransition,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import type { z } from "zod";
import { openStream, type StreamMessage } from "./stream";
import type { Freshness, StreamStore } from "./stream-store";

/** Keeps `store` fed by the stream at `path`, whose messages `schema` reads, while the component is mounted. */
export function useStreamInto<M extends StreamMessage>(
  store: StreamStore<M>,
  path: string,
  schema: z.ZodType<M>,
): void {
  useEffect(() => {
    const connection = openStream(path, schema, {
      message: (message) => store.receive(message),
      state: (state) => store.connection(state),
      activity: (at) => store.heard(at),
      ended: (problem) => store.ended(problem),
      refused: (refusal) => store.refused(refusal),
    });
    return () => connection.close();
  }, [store, path, schema]);
}

/**
 * A value of a stream's store, rendered again as a transition when the store says it changed.
 * React renders a transition in slices of a few milliseconds between the browser's tasks, where
 * useSyncExternalStore renders every change at once: a frame's burst of price moves on a busy board
 * was one task of 50 ms and more. Each component keeps the immutable value it last rendered, so no
 * render mixes two states of one row.
 */
export function useStoreValue<T>(subscribe: (listener: () => void) => () => void, read: () => T): T {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const changed = () => startTransition(() => setValue(() => read()));
    // What changed between the first render and this subscription.
    changed();
    return subscribe(changed);
  }, [subscribe, read]);
  return value;
}

/** Tells the store when React committed what it applied, for the board benchmark's message to paint. */
export function usePaintReport<M extends StreamMessage>(store: StreamStore<M>): void {
  const batch = useStoreValue(store.subscribeBatch, store.appliedBatch);
  useLayoutEffect(() => store.committed(batch), [store, batch]);
}

export function useFreshness<M extends StreamMessage>(store: StreamStore<M>): Freshness {
  return useSyncExternalStore(store.subscribeFreshness, store.freshnessNow, store.freshnessNow);
}

// One clock for every age on the page, ticking each second.
const clockListeners = new Set<() => void>();
let clockNow = typeof window === "undefined" ? 0 : Date.now();
let clockTimer: ReturnType<typeof setInterval> | undefined;
function subscribeClock(listener: () => void) {
  clockListeners.add(listener);
  if (!clockTimer) {
    clockNow = Date.now();
    clockTimer = setInterval(() => {
      clockNow = Date.now();
      for (const l of clockListeners) l();
    }, 1_000);
  }
  return () => {
    clockListeners.delete(listener);
    if (clockListeners.size === 0) {
      clearInterval(clockTimer);
      clockTimer = undefined;
    }
  };
}

/** The time now, to the second; 0 while rendering on the server. */
export function useClock(): number {
  return useSyncExternalStore(
    subscribeClock,
    () => clockNow,
    () => 0,
  );
}

// The ages of rows: one timer writes each element's text, and only when it changed; elements are
// written and never read, so no layout is forced, and nothing re-renders.
type Aged = { at: number; quietSeconds: number; text: string; format: AgeFormat };
type AgeFormat = (now: number, at: number, quietSeconds: number) => string;
const aged = new Map<HTMLElement, Aged>();
let ageTimer: ReturnType<typeof setInterval> | undefined;

function writeAge(element: HTMLElement, age: Aged, now: number): void {
  const text = age.format(now, age.at, age.quietSeconds);
  if (text === age.text) return;
  age.text = text;
  element.textContent = text;
  element.hidden = text === "";
}

/** A ref for an element whose text is the age of `at`, kept current each second without rendering. */
export function useAgeTicker(at: number, quietSeconds: number, format: AgeFormat) {
  const ref = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const age: Aged = { at, quietSeconds, text: element.textContent ?? "", format };
    writeAge(element, age, Date.now());
    aged.set(element, age);
    if (!ageTimer) {
      ageTimer = setInterval(() => {
        const now = Date.now();
        for (const [each, age] of aged) writeAge(each, age, now);
      }, 1_000);
    }
    return () => {
      aged.delete(element);
      if (aged.size === 0) {
        clearInterval(ageTimer);
        ageTimer = undefined;
      }
    };
  }, [at, quietSeconds, format]);
  return ref;
}

/** `value` once it has stayed the same for `ms`: what a control settled on, not each step on the way. */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A value kept in the browser's localStorage, the same in every component that reads `key`. */
export function useStoredValue<T extends string>(key: string, fallback: T): [T, (value: T) => void] {
  const read = useCallback(
    () => ((typeof window === "undefined" ? null : window.localStorage.getItem(key)) as T | null) ?? fallback,
    [key, fallback],
  );
  const value = useSyncExternalStore(subscribeStorage, read, () => fallback);
  const write = useCallback(
    (next: T) => {
      localStorage.setItem(key, next);
      for (const listener of storageListeners) listener();
    },
    [key],
  );
  return [value, write];
}

const storageListeners = new Set<() => void>();
function subscribeStorage(listener: () => void) {
  storageListeners.add(listener);
  // Another tab's change too.
  window.addEventListener("storage", listener);
  return () => {
    storageListeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}
