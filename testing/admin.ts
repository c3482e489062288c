import { runAdminCommand } from "../lib/admin/commands.ts";
import type { Database } from "../lib/db/index.ts";
import { recordSecret } from "./logs.ts";
import type { ProcessResult } from "./processes.ts";

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
      connect: async () => ({ db: db(), sandboxKeyTtlDays, close: async () => {} }),
      print: (text) => stdout.push(`${text}\n`),
      printError: (text) => stderr.push(`${text}\n`),
    });
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  }
  return {
    run,
    async json<T>(args: string[]): Promise<T> {
      const result = await run([...args, "--json"]);
      if (result.code !== 0)
        throw new Error(`admin ${args.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
      const document = JSON.parse(result.stdout) as T;
      // What the CLI shows once (a new key, a reset password) must never reach a server's log.
      for (const name of ["key", "password"]) recordSecret((document as Record<string, unknown>)?.[name] as string);
      return document;
    },
  };
}
