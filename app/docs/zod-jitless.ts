import { z } from "zod";

// Scalar validates with zod, which probes whether it may compile parsers with `Function("")`. The
// page's policy forbids eval, so the probe fails (and zod parses without compiling anyway), but
// the browser reports each attempt as a violation. Saying so up front skips the probe. Imported
// by scalar.tsx before Scalar itself, so it runs first.
z.config({ jitless: true });
