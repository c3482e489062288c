// How errors are written to the log. A failed query's error carries the statement's parameters
// (drizzle puts them in its message and in `params`; drivers keep them too): password, key and
// token hashes among them. They are dropped here, once, for every line that logs an error.

const PARAMETER_FIELDS = new Set(["params", "parameters", "args", "values", "binds"]);
const MAX_CAUSES = 4;

/** A message or stack without drizzle's `params: …` tail. */
function withoutParameters(text: string): string {
  return text.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/, "\nparams: (not logged)");
}

export type LoggedError = {
  type: string;
  message: string;
  stack?: string;
  cause?: LoggedError | string;
  [field: string]: unknown;
};

/** The error as the log shows it: its type, message, stack, own plain fields and causes, no parameters. */
export function loggedError(error: unknown, depth = 0): LoggedError | string {
  if (!(error instanceof Error)) return typeof error === "string" ? error : String(error);
  const logged: LoggedError = { type: error.name, message: withoutParameters(error.message) };
  for (const [field, value] of Object.entries(error)) {
    if (PARAMETER_FIELDS.has(field) || field === "cause") continue;
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) logged[field] = value;
  }
  if (error.stack) logged.stack = withoutParameters(error.stack);
  if (error.cause !== undefined && depth < MAX_CAUSES) logged.cause = loggedError(error.cause, depth + 1);
  return logged;
}
