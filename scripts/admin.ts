// The operator CLI: `npm run admin -- <command>`. It uses the server's database settings and the
// same lib/ rules as the console. While a server holds the embedded database, the command is sent
// to that server (lib/ops/admin/channel.ts) and its output printed here. Exit codes: 0 done, 1 refused
// (a rule or an invalid value), 2 usage error.
import { ChannelRefused, sendToRunningInstance } from "../lib/ops/admin/channel-client.ts";
import type { AdminIo } from "../lib/ops/admin/commands.ts";
import { ConfigError, loadConfig } from "../lib/config.ts";
import { loadEnvFiles } from "../lib/env-files.ts";
import { registerModuleHooks } from "../lib/ops/module-hooks.ts";

// The modules that use the database are loaded once the hooks are in place (lib/ops/module-hooks.ts).
registerModuleHooks();
const [{ runAdminCommand }, { openDatabase }, { seedReferenceData }] = await Promise.all([
  import("../lib/ops/admin/commands.ts"),
  import("../lib/db/index.ts"),
  import("../seeds/index.ts"),
]);

const argv = process.argv.slice(2);
const io: AdminIo = {
  async connect() {
    const config = loadConfig();
    const handle = await openDatabase(config);
    try {
      await seedReferenceData(handle.db);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return {
      db: handle.db,
      sandboxKeyTtlDays: config.SANDBOX_KEY_TTL_DAYS,
      allowPrivateWebhooks: config.WEBHOOKS_ALLOW_PRIVATE === "1",
      close: () => handle.close(),
    };
  },
  print: (text) => console.log(text),
  printError: (text) => console.error(text),
};

/** The exit code of the command as the running instance ran it, or null when none runs here. */
async function sentToRunningInstance(): Promise<number | null> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    // Said by the command run here, in the usual form.
    if (error instanceof ConfigError) return null;
    throw error;
  }
  // With PostgreSQL the CLI opens the database itself, beside any number of servers.
  if (config.DATABASE_URL) return null;
  try {
    const sent = await sendToRunningInstance(config.DATA_DIR, argv, io);
    if (!sent) return null;
    console.error(`(sent to the running instance, pid ${sent.pid}, which holds the embedded database)`);
    return sent.code;
  } catch (error) {
    if (!(error instanceof ChannelRefused)) throw error;
    if (argv.includes("--json"))
      console.log(JSON.stringify({ error: { code: "channel_refused", message: error.message } }, null, 2));
    else console.error(error.message);
    return 1;
  }
}

loadEnvFiles();
process.exitCode = (await sentToRunningInstance()) ?? (await runAdminCommand(argv, io));
