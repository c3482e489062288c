// Faults of the disk under code that writes with fs.writeSync (the metering journal), in this process.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

export type WriteSync = (fd: number, text: string) => number;

/**
 * Replaces fs.writeSync with `replacement(real)` until the returned function is called. The journal
 * imports writeSync by name; syncBuiltinESMExports carries the replacement to such imports of node:fs.
 */
export function replaceWriteSync(replacement: (real: WriteSync) => WriteSync): () => void {
  const real = fs.writeSync;
  fs.writeSync = replacement(real as WriteSync) as typeof fs.writeSync;
  syncBuiltinESMExports();
  return () => {
    fs.writeSync = real;
    syncBuiltinESMExports();
  };
}

/** Runs `work` with fs.writeSync replaced by `replacement(real)`. */
export function withWriteSync(replacement: (real: WriteSync) => WriteSync, work: () => void): void {
  const restore = replaceWriteSync(replacement);
  try {
    work();
  } finally {
    restore();
  }
}

/** How many times `work` called write(2) through fs.writeSync. */
export function writeCalls(work: () => void): number {
  let calls = 0;
  withWriteSync(
    (real) => (fd, text) => {
      calls++;
      return real(fd, text);
    },
    work,
  );
  return calls;
}
