import type { z } from "zod";
import { ApiError, type ParamError } from "./errors.ts";
import type { QueryParams } from "./types.ts";

// A request's input, parsed with the endpoint's own schemas: each problem names its parameter.

function issuesToErrors(issues: z.core.$ZodIssue[], fallback: string): ParamError[] {
  return issues.map((issue) => ({ param: String(issue.path[0] ?? fallback), message: issue.message }));
}

export function parseInput<S extends z.ZodObject>(
  schema: S,
  values: Record<string, string>,
  where: string,
): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const errors = issuesToErrors(parsed.error.issues, where);
  throw new ApiError("invalid_parameter", errors.map((e) => `${e.param}: ${e.message}`).join("; "), { errors });
}

// Each endpoint's input when its query is empty (most requests): its defaults, parsed once, frozen
// since every such request shares it.
const emptyQueries = new WeakMap<z.ZodObject, unknown>();

export function parseQuery<S extends z.ZodObject>(schema: S, query: QueryParams): z.infer<S> {
  if (query.size === 0) {
    const cached = emptyQueries.get(schema);
    if (cached !== undefined) return cached as z.infer<S>;
    const parsed = Object.freeze(parseInput(schema, {}, "query"));
    emptyQueries.set(schema, parsed);
    return parsed as z.infer<S>;
  }
  const known = Object.keys(schema.shape);
  const values: Record<string, string> = {};
  const unknown: ParamError[] = [];
  const repeated: ParamError[] = [];
  for (const [name, value] of query) {
    if (!known.includes(name)) {
      if (!unknown.some((e) => e.param === name)) {
        unknown.push({
          param: name,
          message: known.length
            ? `not a parameter of this endpoint (it takes ${known.join(", ")})`
            : "this endpoint takes no parameters",
        });
      }
    } else if (name in values) {
      repeated.push({ param: name, message: "given more than once; give it once" });
    } else {
      values[name] = value;
    }
  }
  if (unknown.length) {
    throw new ApiError(
      "unknown_parameter",
      `Unknown query parameter ${unknown.map((e) => `"${e.param}"`).join(", ")}.`,
      {
        errors: unknown,
      },
    );
  }
  if (repeated.length) {
    throw new ApiError("invalid_parameter", repeated.map((e) => `${e.param}: ${e.message}`).join("; "), {
      errors: repeated,
    });
  }
  return parseInput(schema, values, "query");
}
