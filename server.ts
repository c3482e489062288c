// The production server (`npm start`) and the development server (`npm run dev`): serve.ts, loaded
// once drizzle-orm's modules resolve without Node reading the package's manifest again for each
// (lib/module-resolution.ts). Imported, not a static import: Node resolves a module's whole static
// graph before it runs any of it, so a hook registered in the same graph would come too late.
import { resolveDrizzleQuickly } from "./lib/module-resolution.ts";

resolveDrizzleQuickly();
await import("./serve.ts");
