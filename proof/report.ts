// What the abuse suite's parts share: findings, figures and the pace of their work.

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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A text without the keys in it: findings are printed, keys are not. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replaceAll(secret, `${secret.slice(0, 7)}…`);
  return out;
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
