// Dates in UTC, the service's time zone for quotas, licences and expiry, so server and browser agree.
const day = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const dateTime = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
});
const number = new Intl.NumberFormat("en-GB");

export function formatDay(value: Date | string | null): string {
  if (!value) return "—";
  return day.format(typeof value === "string" ? new Date(`${value.slice(0, 10)}T00:00:00Z`) : value);
}

export function formatDateTime(value: Date | string | null): string {
  if (!value) return "—";
  return `${dateTime.format(new Date(value))} UTC`;
}

export function formatNumber(value: number): string {
  return number.format(value);
}
