/** One line of an NDJSON batch: its number (from 1), and the parsed value or why it did not parse. */
export type BatchLine = { line: number; value?: unknown; error?: string };

/** Splits NDJSON; blank lines are skipped but keep the numbering, so results point at the file's lines. */
export function parseNdjson(body: string): BatchLine[] {
  const lines: BatchLine[] = [];
  body.split("\n").forEach((raw, index) => {
    const text = raw.trim();
    if (!text) return;
    try {
      lines.push({ line: index + 1, value: JSON.parse(text) });
    } catch (error) {
      lines.push({ line: index + 1, error: error instanceof SyntaxError ? error.message : "not JSON" });
    }
  });
  return lines;
}
