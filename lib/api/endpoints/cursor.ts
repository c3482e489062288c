import { ApiError } from "../request/errors.ts";

/** A position in the list order (kickoff, then id): the page after it starts with the next event. */
export type ListPosition = { kickoff: string; id: string };

// Opaque to clients: the version letter leaves room to change the format.
export function encodeCursor(position: ListPosition): string {
  return `1${Buffer.from(JSON.stringify([position.kickoff, position.id])).toString("base64url")}`;
}

export function decodeCursor(cursor: string): ListPosition {
  const invalid = () =>
    new ApiError("invalid_parameter", "cursor: not a cursor this API gave out; pass meta.next_cursor as it is", {
      errors: [{ param: "cursor", message: "not a cursor this API gave out; pass meta.next_cursor as it is" }],
    });
  if (!cursor.startsWith("1")) throw invalid();
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor.slice(1), "base64url").toString());
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { kickoff: value[0], id: value[1] };
    }
  } catch {
    // falls through to the refusal
  }
  throw invalid();
}
