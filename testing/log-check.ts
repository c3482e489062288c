import { afterAll, expect } from "vitest";
import { logFindings, resetLogChecks } from "./logs.ts";

// Runs after every integration test file (vitest setupFiles): see logs.ts.
afterAll(() => {
  const findings = logFindings();
  resetLogChecks();
  expect(findings.slice(0, 10).map((f) => `${f.problem}: ${f.line.slice(0, 300)}`)).toEqual([]);
});
