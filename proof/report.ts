import { readFileSync } from "node:fs";

// What the abuse suite's parts share: findings, figures, pacing within a key's limit, and what it
// reads of the server process (its memory, its metrics).

/** Something the suite found wrong with the service. */
export type Finding = { check: string; problem: string; detail?: string };

/** Counts of a run: cases tried, statuses seen, how invalid input was answered. */
export class Tally {
  cases = 0;
  readonly statuses = new Map<string, number>();
  invalidCases = 0;
  invalidNot4xx = 0;

  status(label: string): void {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }

  invalidInput(status: number): void {
    this.invalidCases++;
    if (status < 400 || status >= 500) this.invalidNot4xx++;
  }
}

/** Keeps one key within its requests per second (the server's windows are wall-clock seconds). */
export class Pacer {
  private second = 0;
  private sent = 0;
  private readonly perSecond: number;

  constructor(perSecond: number) {
    this.perSecond = perSecond;
  }

  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const current = Math.floor(now / 1000);
      if (current !== this.second) {
        this.second = current;
        this.sent = 0;
      }
      if (this.sent < this.perSecond) {
        this.sent++;
        return;
      }
      await sleep(1000 - (now % 1000) + 5);
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A text without the keys in it: findings are printed, keys are not. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, `${secret.slice(0, 7)}…`);
  return out;
}

/** Resident memory of a process, in bytes (Linux: /proc/<pid>/status). */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** One sample of a Prometheus text exposition; 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

export async function scrape(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

/** Statements the server sent to the database while serving API requests, so far. */
export async function requestQueries(baseUrl: string, token: string): Promise<number> {
  return sample(await scrape(baseUrl, token), "database_queries_total", { origin: "request" });
}

/** Runs `work` for each of `count` items, `concurrency` at a time. */
export async function inParallel(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
}
