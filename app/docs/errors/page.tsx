import type { Metadata } from "next";
import { API_ERRORS } from "@/lib/api/request/errors";
import { SERVICE_ERRORS } from "@/lib/http/service-errors";

export const metadata: Metadata = { title: "Error codes" };

type Entry = [code: string, error: { status: number; title: string; description: string }];

/** `code` spans of a description written with backticks, as in the OpenAPI document. */
function Described({ text }: { text: string }) {
  return text.split("`").map((part, i) =>
    i % 2 === 1 ? (
      <code key={i} className="rounded bg-slate-100 px-1">
        {part}
      </code>
    ) : (
      part
    ),
  );
}

function Codes({ entries }: { entries: Entry[] }) {
  return (
    <dl className="divide-y divide-slate-200 border-y border-slate-200">
      {entries.map(([code, error]) => (
        <div key={code} id={code} className="scroll-mt-4 space-y-1 py-4">
          <dt className="flex flex-wrap items-baseline gap-x-3">
            <a href={`#${code}`} className="font-mono text-lg font-semibold text-pitch-900 hover:underline">
              {code}
            </a>
            <span className="text-slate-700">{`${error.status} · ${error.title}`}</span>
          </dt>
          <dd className="max-w-3xl text-slate-700">
            <Described text={error.description} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

// GET /docs/errors: what every problem body's `type` points at, one section per code, generated
// from the tables the answers are built from.
export default function ErrorsPage() {
  return (
    <div className="space-y-8">
      <header className="space-y-2">
        <h1 className="text-3xl font-semibold tracking-tight">Error codes</h1>
        <p className="max-w-3xl text-slate-700">
          Every error is answered as RFC 9457 problem details (
          <code className="rounded bg-slate-100 px-1">application/problem+json</code>) with a stable{" "}
          <code className="rounded bg-slate-100 px-1">code</code> to switch on. Its{" "}
          <code className="rounded bg-slate-100 px-1">type</code> is{" "}
          <code className="rounded bg-slate-100 px-1">/docs/errors#&lt;code&gt;</code>, resolved against the
          request&apos;s URL: the section of this page that explains the code. See also the{" "}
          <a className="text-blue-700 underline" href="/docs">
            API reference
          </a>
          .
        </p>
      </header>
      <section aria-labelledby="api-errors" className="space-y-3">
        <h2 id="api-errors" className="text-xl font-semibold">
          API (<code>/api/v1</code>)
        </h2>
        <Codes entries={Object.entries(API_ERRORS)} />
      </section>
      <section aria-labelledby="service-errors" className="space-y-3">
        <h2 id="service-errors" className="text-xl font-semibold">
          Provider ingest, metrics and the server
        </h2>
        <Codes entries={Object.entries(SERVICE_ERRORS)} />
      </section>
    </div>
  );
}
