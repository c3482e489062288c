import { closeSync, fchmodSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

// One-time credentials (the first start's sign-ins) are for the person starting the server and
// for no log. On a terminal they are printed there; when standard output is not a terminal it is
// a log (a file, a collector, journald), so they go to a file only this user can read, and the
// log says where.

export const SIGN_INS_FILE = "sign-ins.txt";

/**
 * `print` writes a line for the terminal outside the log records (printForOperator), `log` a log
 * record; `terminal`: whether standard output is one.
 */
export function showOnce(
  lines: string[],
  options: { dataDir: string; terminal: boolean; print(line: string): void; log(message: string): void },
): { printed: true } | { file: string } {
  if (options.terminal) {
    for (const line of lines) options.print(line);
    return { printed: true };
  }
  const file = path.resolve(options.dataDir, SIGN_INS_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  // Written whole to a new file of this process's own, owner-only from its creation, then put in
  // place of any older one: never through a link, never with an older file's wider mode.
  const written = `${file}.${process.pid}.tmp`;
  rmSync(written, { force: true });
  const fd = openSync(written, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${lines.join("\n")}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(written, file);
  options.log(
    `One-time sign-ins written to ${file} (readable by this user only; standard output is not a terminal, ` +
      "so they are kept out of the log). Read it, then delete it.",
  );
  return { file };
}
