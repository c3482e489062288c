// Loaded with `--import` into each test worker (vitest.config.ts's execArgv), before any test
// file's modules: drizzle's files resolved as the server resolves them (lib/ops/module-hooks.ts).
import { registerModuleHooks } from "../lib/ops/module-hooks.ts";

registerModuleHooks();
