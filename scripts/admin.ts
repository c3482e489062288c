// The operator CLI: `npm run admin -- <command>`. It uses the server's database settings and the
// same lib/ rules as the console. While a server holds the embedded database, the command is sent
// to that server (lib/ops/admin/channel.ts) and its output printed here. Exit codes: 0 done, 1 refused
// (a rule or an invalid value), 2 usage error. Loaded as server.ts loads the server, for the same reason.
import { resolveDrizzleQuickly } from "../lib/module-resolution.ts";

resolveDrizzleQuickly();
await import("./admin-cli.ts");
