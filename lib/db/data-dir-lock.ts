import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite is a single-process database: two processes writing one data folder corrupt it. The lock
 * file holds the owner's pid; a lock left by a process that no longer runs is taken over.
 * Returns the function that releases the lock.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = path.join(dir, "pglite.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockFile, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (readFileSync(lockFile, "utf8").trim() === String(process.pid)) unlinkSync(lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = Number.parseInt(readFileSync(lockFile, "utf8").trim(), 10);
    if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new DataDirInUseError(
        `The embedded database in ${path.resolve(dir)} is in use by process ${owner}` +
          (owner === process.pid ? " (this process)" : "") +
          ". PGlite can be opened by one process only: stop that process first, " +
          "or set DATABASE_URL to share a PostgreSQL database between processes. " +
          `(If process ${owner} is not one of ours, its number was reused after a crash: delete ${lockFile}.)`,
      );
    }
    // The owner is gone (crashed or killed): the lock is stale.
    try {
      unlinkSync(lockFile);
    } catch {
      // Another process removed it first; try again.
    }
  }
  throw new DataDirInUseError(`Could not lock ${path.resolve(lockFile)}: another process keeps taking it.`);
}
