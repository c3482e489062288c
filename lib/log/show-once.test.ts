import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SIGN_INS_FILE, showOnce } from "./show-once.ts";

const LINES = [
  "Demo sign-in (shown this once): a@b.example / s3cretPassw0rd1",
  "Operator sign-in (shown this once): o@b.example / 0therPassw0rd22",
];

function capture(terminal: boolean, dataDir = mkdtempSync(path.join(tmpdir(), "show-once-"))) {
  const printed: string[] = [];
  const logged: string[] = [];
  const shown = showOnce(LINES, { dataDir, terminal, print: (l) => printed.push(l), log: (m) => logged.push(m) });
  return { dataDir, printed, logged, shown };
}

describe("one-time sign-ins", () => {
  it("are printed on a terminal, and nothing is logged or written", () => {
    const { printed, logged, shown } = capture(true);
    expect(printed).toEqual(LINES);
    expect(logged).toEqual([]);
    expect(shown).toEqual({ printed: true });
  });

  it("go to a file only the owner can read when standard output is not a terminal; the log names the file only", () => {
    const { dataDir, printed, logged } = capture(false);
    const file = path.join(dataDir, SIGN_INS_FILE);
    expect(printed).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe(`${LINES.join("\n")}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(file);
    expect(logged[0]).not.toMatch(/s3cret|0therPass/);
  });

  it("replaces an older file, whatever its mode, rather than writing into it", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "show-once-"));
    writeFileSync(path.join(dataDir, SIGN_INS_FILE), "old\n", { mode: 0o644 });
    capture(false, dataDir);
    const file = path.join(dataDir, SIGN_INS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain("old");
  });
});
