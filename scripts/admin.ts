// The operator CLI: `npm run admin -- <command>`. It uses the server's database settings and the
// same lib/ rules as the console. Exit codes: 0 done, 1 refused (a rule or an invalid value),
// 2 usage error.
import { runAdminCommand } from "../lib/admin/commands.ts";
import { loadConfig } from "../lib/config.ts";
import { openDatabase } from "../lib/db/index.ts";
import { loadEnvFiles } from "../lib/env-files.ts";
import { seedReferenceData } from "../seeds/index.ts";

process.exitCode = await runAdminCommand(process.argv.slice(2), {
  async connect() {
    loadEnvFiles();
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
});
