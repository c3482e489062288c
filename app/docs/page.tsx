import type { Metadata } from "next";
import { ApiReference } from "./api-reference";

export const metadata: Metadata = { title: "API reference" };

// The reference of /api/v1, rendered in the browser from GET /api/v1/openapi.json: the document
// generated from the same zod schemas that validate every request (lib/api/documents/openapi.ts).
export default function DocsPage() {
  return (
    <div className="space-y-6">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">API reference</h1>
        <p className="max-w-3xl text-slate-700">
          New here? The{" "}
          <a className="text-blue-700 underline" href="/docs/quickstart">
            quickstart
          </a>{" "}
          goes from a fresh key to a live board in your own page in five minutes. Every endpoint of{" "}
          <code className="rounded bg-slate-100 px-1">/api/v1</code> with its parameters, answers and errors. The curl
          examples run against this server: replace <code className="rounded bg-slate-100 px-1">YOUR_SECRET_TOKEN</code>{" "}
          with a key from the console. The machine-readable documents are{" "}
          <a className="text-blue-700 underline" href="/api/v1/openapi.json">
            /api/v1/openapi.json
          </a>{" "}
          (OpenAPI 3.1) and, for the streams,{" "}
          <a className="text-blue-700 underline" href="/api/v1/asyncapi.json">
            /api/v1/asyncapi.json
          </a>{" "}
          (AsyncAPI 3.0); for language models,{" "}
          <a className="text-blue-700 underline" href="/llms.txt">
            /llms.txt
          </a>
          . Every error code, with its status and meaning, is on{" "}
          <a className="text-blue-700 underline" href="/docs/errors">
            the page of error codes
          </a>
          , where each problem&apos;s <code className="rounded bg-slate-100 px-1">type</code> leads.
        </p>
      </header>
      <ApiReference />
    </div>
  );
}
