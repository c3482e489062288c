// How every page shows a moment: in the viewer's own time zone, with the zone named, and UTC a
// hover away; or, when the viewer chose it in the display settings, in UTC with the local time a
// hover away. Calendar dates that are days of their own (a licence's validity, a quota's month)
// are not moments and are not shown through this.

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];
export const TIME_MODES = ["local", "utc"] as const;
export type TimeMode = (typeof TIME_MODES)[number];

/** How much of a moment is shown: date and time to the minute, the day alone, or a clock to the second. */
export type TimeStyle = "datetime" | "day" | "clock";

export const THEME_COOKIE = "theme";
export const TIMES_COOKIE = "times";
/** The browser's own zone, told to the server so that pages are rendered in it from the first paint. */
export const ZONE_COOKIE = "tz";

export function readTheme(value: string | undefined): Theme {
  return THEMES.includes(value as Theme) ? (value as Theme) : "system";
}

export function readTimeMode(value: string | undefined): TimeMode {
  return value === "utc" ? "utc" : "local";
}

/** A zone the platform knows, else UTC (a cookie may say anything). */
export function readZone(value: string | undefined): string {
  if (!value) return "UTC";
  try {
    return new Intl.DateTimeFormat("en-GB", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return "UTC";
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string, style: TimeStyle | "zone"): Intl.DateTimeFormat {
  const key = `${zone}|${style}`;
  let made = formats.get(key);
  if (!made) {
    const options: Intl.DateTimeFormatOptions =
      style === "day"
        ? { day: "numeric", month: "short", year: "numeric" }
        : style === "clock"
          ? { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }
          : style === "zone"
            ? { timeZoneName: "short" }
            : { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
    made = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: zone });
    formats.set(key, made);
  }
  return made;
}

/** The zone's short name at that moment: "UTC", "CET", "BST", or "GMT+2" where it has none. */
export function zoneName(zone: string, at: Date | number = Date.now()): string {
  if (zone === "UTC") return "UTC";
  return (
    format(zone, "zone")
      .formatToParts(at)
      .find((part) => part.type === "timeZoneName")?.value ?? zone
  );
}

/** The moment in `zone`, without the zone's name: "28 Nov 2026, 18:29", "28 Nov 2026", "18:29:05". */
export function formatIn(at: Date | number | string, zone: string, style: TimeStyle): string {
  return format(zone, style).format(new Date(at));
}

/**
 * What a moment reads as, and its tooltip: the chosen zone's time with the zone named, and the other
 * of local and UTC in the title (the day alone names no zone; its title is the whole moment).
 */
export function shownMoment(
  at: Date | number | string,
  settings: { mode: TimeMode; zone: string },
  style: TimeStyle,
): { text: string; title: string } {
  const moment = new Date(at);
  const shownZone = settings.mode === "utc" ? "UTC" : settings.zone;
  const otherZone = settings.mode === "utc" ? settings.zone : "UTC";
  const named = (zone: string, each: TimeStyle) => `${formatIn(moment, zone, each)} ${zoneName(zone, moment)}`;
  const text = style === "day" ? formatIn(moment, shownZone, "day") : named(shownZone, style);
  const title =
    style === "day"
      ? named(shownZone, "datetime")
      : otherZone === shownZone
        ? named(shownZone, "datetime")
        : named(otherZone, style === "clock" ? "clock" : "datetime");
  return { text, title };
}
