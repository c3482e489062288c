// Runs a server script with V8's collection trace on (one line of name=value pairs a collection, on
// standard output): bench/api-gc.ts starts our server and the baseline through it. The flag is set
// here because Node refuses it in NODE_OPTIONS.
//
//   node bench/gc-trace.ts SCRIPT [ARGS…]
import path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

const script = process.argv[2];
if (!script) throw new Error("usage: node bench/gc-trace.ts SCRIPT [ARGS…]");
v8.setFlagsFromString("--trace-gc-nvp");
// The script sees its own arguments where it expects them.
process.argv.splice(1, 2, path.resolve(script));
await import(pathToFileURL(path.resolve(script)).href);
