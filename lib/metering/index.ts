// Metering: monthly quotas, per-second limits and concurrent streams per key (and per console
// member reading with the session cookie), and the usage records the console charts. The design
// and its guarantees are in docs/metering.md.
export {
  JournalMeter,
  startInstanceMeter,
  type Admission,
  type InstanceMeter,
  type Meter,
  type MeterOptions,
  type MeterStats,
  type StreamSlot,
  type UsageWatch,
} from "./meter.ts";
export { unmetered } from "./unmetered.ts";
export { monthOf, nextMonthStart, type Policy } from "./policies.ts";
export { memberPrincipal, organisationPrincipal } from "./tally.ts";
