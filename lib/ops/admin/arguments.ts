// What every operator CLI command reads of its command line, and how it refuses a wrong one.

/** A command line that cannot be run as given: exit 2 with the usage. */
export class UsageError extends Error {}

export type Options = Record<string, string | boolean | undefined>;

/** What a command prints: `json` with --json, else `text`. */
export type Output = { json: unknown; text: string };

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required.`);
  return value;
}

export function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === "string" ? value : undefined;
}
