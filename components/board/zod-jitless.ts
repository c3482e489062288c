import { z } from "zod";

// The pages' Content-Security-Policy forbids eval: without this, zod probes for it with
// `new Function` at the first parse, and the browser reports a violation on every page.
z.config({ jitless: true });
