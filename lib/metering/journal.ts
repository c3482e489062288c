import { randomBytes } from "node:crypto";
import {
  closeSync,
  fdatasync,
  ftruncateSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";

// The write-ahead journal of one instance's metering: a line `<key id> <epoch ms>\n` per admitted
// request, written before it is answered so a crash of the process cannot lose it
// (docs/decisions/journal-meter.md).
//
// File names are `<pid>-<journal id>.journal`: the pid tells a live instance's journal (left
// alone) from a dead one's (replayed); the journal id names its row in meter_journals.

const SUFFIX = ".journal";
const RECOVERING = ".recovering";

export type JournalRecord = { keyId: string; at: number };

export class Journal {
  readonly id: string;
  readonly file: string;
  readonly createdAt = Date.now();
  /** Bytes the database has, as of this instance's last committed flush. */
  flushedBytes = 0;
  private fd: number;
  private bytes = 0;
  private batch = "";

  private constructor(dir: string, id: string) {
    this.id = id;
    this.file = path.join(dir, `${process.pid}-${id}${SUFFIX}`);
    this.fd = openSync(this.file, "a");
  }

  static create(dir: string): Journal {
    mkdirSync(dir, { recursive: true });
    return new Journal(dir, `${Date.now().toString(36)}${randomBytes(6).toString("hex")}`);
  }

  /** Bytes written so far: the offset the next record starts at (uncommitted lines are not in it). */
  get size(): number {
    return this.bytes;
  }

  /** Adds one admitted request to the lines the next `commit` writes. */
  append(keyId: string, at: number): void {
    this.batch += `${keyId} ${at}\n`; // ASCII: as many bytes as characters
  }

  /**
   * Writes the lines appended since the last commit, with one write(2). Throws if they could not be
   * written whole; the file is then cut back to where it was, so that it holds none of them and
   * the next lines start on a line of their own.
   */
  commit(): void {
    const batch = this.batch;
    if (batch === "") return;
    this.batch = "";
    let written = 0;
    try {
      written = writeSync(this.fd, batch);
      if (written !== batch.length) throw new Error(`journal write was short (${written} of ${batch.length} bytes)`);
    } catch (error) {
      if (written > 0) ftruncateSync(this.fd, this.bytes);
      throw error;
    }
    this.bytes += written;
  }

  /**
   * Makes what was written so far survive a power cut too, off the event loop (libuv's thread
   * pool). A process crash needs nothing of this: written lines are in the kernel already.
   */
  sync(): Promise<void> {
    if (this.fd < 0) return Promise.resolve();
    return new Promise((resolve, reject) => fdatasync(this.fd, (error) => (error ? reject(error) : resolve())));
  }

  /** Closes the file and deletes it: only once everything in it is durably in the database. */
  remove(): void {
    this.close();
    unlinkSync(this.file);
  }

  /** Closes the file; lines not yet committed are dropped (their requests were not answered). */
  close(): void {
    this.batch = "";
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false; // a journal with our pid is a predecessor's: pids are reused
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export type OrphanJournal = { id: string; file: string };

export function removeJournalFile(file: string): void {
  unlinkSync(file);
}

/**
 * Journals in `dir` whose process no longer runs (other than this process's `own`), each renamed
 * to this process first: of two instances claiming together only one can rename a file, so only
 * one replays it.
 */
export function claimOrphans(dir: string, own: ReadonlySet<string> = new Set()): OrphanJournal[] {
  if (!existsSync(dir)) return [];
  const claimed: OrphanJournal[] = [];
  for (const name of readdirSync(dir)) {
    const match = /^(\d+)-([0-9a-z]+)\.journal(?:\.recovering)?$/.exec(name);
    if (!match || own.has(match[2]!) || isAlive(Number(match[1]))) continue;
    const file = path.join(dir, `${process.pid}-${match[2]}${SUFFIX}${RECOVERING}`);
    try {
      renameSync(path.join(dir, name), file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // another instance took it
      throw error;
    }
    claimed.push({ id: match[2]!, file });
  }
  return claimed;
}

/**
 * The records of a journal from byte `from`, and the offset after the last whole line. A line cut
 * short (a write that never returned, so a request never answered) is not a record.
 */
export function readJournal(
  file: string,
  from: number,
  to = Number.POSITIVE_INFINITY,
): { records: JournalRecord[]; end: number } {
  const bytes = readFileSync(file).subarray(0, to);
  const records: JournalRecord[] = [];
  let start = from;
  for (let newline = bytes.indexOf(10, start); newline !== -1; newline = bytes.indexOf(10, start)) {
    const [keyId, at] = bytes.toString("utf8", start, newline).split(" ");
    const time = Number(at);
    if (!keyId || !Number.isSafeInteger(time)) throw new Error(`${file}: not a journal line at byte ${start}`);
    records.push({ keyId, at: time });
    start = newline + 1;
  }
  return { records, end: start };
}
