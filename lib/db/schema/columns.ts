import { timestamp } from "drizzle-orm/pg-core";

export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();
export const timestampTz = (name: string) => timestamp(name, { withTimezone: true });

/** A SQL list of quoted literals for CHECK constraints built from the same arrays as the types. */
export function sqlList(values: readonly string[]): string {
  return values.map((value) => `'${value}'`).join(", ");
}
