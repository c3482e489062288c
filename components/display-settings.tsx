"use client";

import { createContext, useContext, useEffect, useState, useSyncExternalStore } from "react";
import {
  readZone,
  shownMoment,
  THEME_COOKIE,
  TIMES_COOKIE,
  ZONE_COOKIE,
  zoneName,
  type Theme,
  type TimeMode,
  type TimeStyle,
} from "@/lib/time-display";

// The viewer's display settings, the same on every page: the theme (the system's, light or dark)
// and how times are shown (local, with the zone named, or UTC). Kept in cookies, so that the server
// renders each page in them from the first paint; the root layout reads them.

export type DisplaySettings = {
  theme: Theme;
  times: TimeMode;
  /** The browser's time zone, as last told to the server ("UTC" until then). */
  zone: string;
};

class SettingsStore {
  private value: DisplaySettings;
  private listeners = new Set<() => void>();
  constructor(initial: DisplaySettings) {
    this.value = initial;
  }
  get = (): DisplaySettings => this.value;
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  set(change: Partial<DisplaySettings>): void {
    this.value = { ...this.value, ...change };
    for (const listener of this.listeners) listener();
  }
}

const SettingsContext = createContext<SettingsStore | null>(null);

function remember(name: string, value: string): void {
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=31536000; samesite=lax`;
}

export function DisplaySettingsProvider({
  initial,
  children,
}: {
  initial: DisplaySettings;
  children: React.ReactNode;
}) {
  const [store] = useState(() => new SettingsStore(initial));
  useEffect(() => {
    // The server cannot know the browser's zone: it is told once, and the times follow at once.
    const zone = readZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
    if (zone !== store.get().zone) {
      remember(ZONE_COOKIE, zone);
      store.set({ zone });
    }
  }, [store]);
  return <SettingsContext.Provider value={store}>{children}</SettingsContext.Provider>;
}

const FALLBACK = new SettingsStore({ theme: "system", times: "local", zone: "UTC" });

function useStore(): SettingsStore {
  return useContext(SettingsContext) ?? FALLBACK;
}

export function useDisplaySettings(): DisplaySettings {
  const store = useStore();
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** The zone times are shown in: the viewer's own, or UTC when they chose it. */
export function useShownZone(): string {
  const { times, zone } = useDisplaySettings();
  return times === "utc" ? "UTC" : zone;
}

/** A moment as the viewer chose to see times, with the other of local and UTC on hover. */
export function Time({ at, style = "datetime" }: { at: Date | string | number; style?: TimeStyle }) {
  const { times, zone } = useDisplaySettings();
  const moment = new Date(at);
  const { text, title } = shownMoment(moment, { mode: times, zone }, style);
  return (
    <time dateTime={moment.toISOString()} title={title}>
      {text}
    </time>
  );
}

const selectClass =
  "rounded-md border border-slate-400 bg-white px-2 py-1 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-pitch-600";

/**
 * The header's two settings, on every page: beside the navigation on a wide screen; behind a
 * "Display" button on a phone, whose header has no room for them.
 */
export function DisplaySettingsControls() {
  const store = useStore();
  const [open, setOpen] = useState(false);
  const { theme, times, zone } = useDisplaySettings();
  const setTheme = (next: Theme) => {
    remember(THEME_COOKIE, next);
    if (next === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = next;
    store.set({ theme: next });
  };
  const setTimes = (next: TimeMode) => {
    remember(TIMES_COOKIE, next);
    store.set({ times: next });
  };
  return (
    <div className="relative">
      <button
        type="button"
        aria-expanded={open}
        aria-controls="display-settings"
        onClick={() => setOpen(!open)}
        className="rounded-md border border-slate-400 px-2 py-1 text-sm text-slate-900 md:hidden"
      >
        Display
      </button>
      <div
        id="display-settings"
        role="group"
        aria-label="Display settings"
        className={`${open ? "flex" : "hidden"} absolute top-full right-0 z-20 mt-2 flex-col items-end gap-3 rounded-md border border-slate-300 bg-white p-3 text-sm shadow-lg md:static md:mt-0 md:flex md:flex-row md:items-center md:gap-x-4 md:border-0 md:bg-transparent md:p-0 md:shadow-none`}
      >
        <label className="flex items-center gap-2">
          <span>Theme</span>
          <select value={theme} onChange={(change) => setTheme(change.target.value as Theme)} className={selectClass}>
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <label className="flex items-center gap-2">
          <span>Times</span>
          <select
            value={times}
            onChange={(change) => setTimes(change.target.value as TimeMode)}
            className={selectClass}
          >
            <option value="local">Local ({zoneName(zone)})</option>
            <option value="utc">UTC</option>
          </select>
        </label>
      </div>
    </div>
  );
}
