import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { format, resolveConfig } from "prettier";
import { openApiDocument } from "../../../lib/api/documents/openapi.ts";

// The client's types, generated from the OpenAPI document the API serves (itself generated from
// the zod schemas that validate requests), so the client cannot drift from the API:
// `npm run generate -w @sports-event-data/client` writes src/openapi.ts, and a unit test
// (generate.test.ts) fails while the committed file differs from what this makes.

export const GENERATED_FILE = fileURLToPath(new URL("../src/openapi.ts", import.meta.url));

const HEADER =
  "// Generated from the service's OpenAPI document by packages/client/scripts/generate.ts: do not edit.\n" +
  "// `npm run generate -w @sports-event-data/client` writes it again.\n\n";

/** The text of src/openapi.ts for the document as the API serves it now, formatted as the repository is. */
export async function generatedTypes(): Promise<string> {
  const ast = await openapiTS(openApiDocument() as unknown as Parameters<typeof openapiTS>[0]);
  const config = await resolveConfig(GENERATED_FILE);
  return format(HEADER + astToString(ast), { ...config, filepath: GENERATED_FILE });
}

export function committedTypes(): string {
  return readFileSync(GENERATED_FILE, "utf8");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_FILE, await generatedTypes());
  console.log(`Wrote ${GENERATED_FILE}`);
}
