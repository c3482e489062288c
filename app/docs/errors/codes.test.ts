import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import ErrorsPage from "./page.tsx";
import { API_ERRORS } from "../../../lib/api/request/error-codes.ts";
import { problemType } from "../../../lib/http/problem.ts";
import { SERVICE_ERRORS } from "../../../lib/http/service-errors.ts";

// Every code a problem body can carry has its section on the reference page of errors: the codes
// of the two tables, and every code the sources answer with, found by reading them (a problem built
// by hand with a code in neither table would have a `type` that leads nowhere).

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TABLES = { ...API_ERRORS, ...SERVICE_ERRORS } as Record<string, { status: number; title: string }>;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => path.join(ROOT, dir, file));
}

/** The codes the sources answer with: problems built with a literal status and code, and ApiErrors. */
function emittedCodes(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [
    /\b(?:problemResponse|problemBody|fail)\(\s*\d{3},\s*"([a-z_]+)"/g,
    /\bnew ApiError\(\s*"([a-z_]+)"/g,
  ];
  for (const file of [
    ...sources("lib"),
    ...sources("app"),
    path.join(ROOT, "server.ts"),
    path.join(ROOT, "proxy.ts"),
  ]) {
    const text = readFileSync(file, "utf8");
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) found.set(match[1]!, path.relative(ROOT, file));
    }
  }
  return found;
}

describe("the reference page of error codes", () => {
  const page = renderToStaticMarkup(createElement(ErrorsPage));

  it("finds the codes the sources answer with, and each is in one of the two tables", () => {
    const emitted = emittedCodes();
    // The reading works: codes of each kind of emitter are among those found.
    for (const code of [
      "not_found",
      "ip_not_allowed",
      "key_expired",
      "licence_inactive",
      "batch_too_large",
      "payload_too_large",
    ]) {
      expect(emitted.has(code), code).toBe(true);
    }
    for (const [code, file] of emitted) expect(TABLES[code], `${code} (answered in ${file})`).toBeDefined();
  });

  it("has a section for every code, the anchor its problem type names, with its status and title", () => {
    for (const [code, error] of Object.entries(TABLES)) {
      const type = problemType(code);
      expect(type).toBe(`/docs/errors#${code}`);
      const section = new RegExp(`<div[^>]* id="${code}"[^>]*>([\\s\\S]*?)</dd>`).exec(page)?.[1];
      expect(section, `a section with id="${code}"`).toBeDefined();
      expect(section).toContain(`href="#${code}"`);
      expect(section).toContain(`${error.status} · ${error.title}`);
    }
  });

  it("names each code once across the two tables", () => {
    const service = Object.keys(SERVICE_ERRORS);
    expect(Object.keys(API_ERRORS).filter((code) => service.includes(code))).toEqual([]);
  });
});
