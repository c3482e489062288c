import { runAdminCommand } from "../lib/ops/admin/commands.ts";
import type { Database } from "../lib/db/index.ts";
import { adminDocument, type ProcessResult } from "./processes.ts";

/** The operator CLI's commands run in-process on a database the test holds open. */
export type AdminCli = {
  /** Runs one command line; what it would print on stdout and stderr, and its exit code. */
  run(args: string[]): Promise<ProcessResult>;
  /** Runs it with --json and returns the parsed document, failing loudly on a non-zero exit. */
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
};

export function adminCli(db: () => Database, sandboxKeyTtlDays = 30): AdminCli {
  async function run(args: string[]): Promise<ProcessResult> {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runAdminCommand(args, {
      // The tests' receivers listen on loopback.
      connect: async () => ({ db: db(), sandboxKeyTtlDays, allowPrivateWebhooks: true, close: async () => {} }),
      print: (text) => stdout.push(`${text}\n`),
      printError: (text) => stderr.push(`${text}\n`),
    });
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  }
  return {
    run,
    async json<T>(args: string[]): Promise<T> {
      return adminDocument<T>(args, await run([...args, "--json"]));
    },
  };
}
