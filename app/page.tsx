import Link from "next/link";

const SPORTS = ["Soccer", "Basketball", "Tennis", "American football", "Ice hockey", "Baseball", "Counter-Strike 2"];

const ENTRY_POINTS = [
  {
    href: "/console",
    title: "Console",
    text: "Get a sandbox key, record your licence, create and revoke production keys.",
  },
  { href: "/board", title: "Live odds board", text: "Every event in play with its score, clock and prices, live." },
  { href: "/docs", title: "API reference", text: "Endpoints, fields, errors and limits of /api/v1, with examples." },
];

export default function HomePage() {
  return (
    <>
      <section aria-labelledby="hero-title">
        <h1 id="hero-title" className="text-4xl font-semibold tracking-tight text-pitch-900">
          Live sports data over one clean API
        </h1>
        <p className="mt-4 max-w-2xl text-lg text-slate-700">
          Live and upcoming events with status, score, clock, period and statistics; lineups; in-play odds; and streams
          that follow an event as it happens. Read-only, JSON, one key per integration.
        </p>
        <ul aria-label="Sports covered" className="mt-6 flex flex-wrap gap-2">
          {SPORTS.map((sport) => (
            <li key={sport} className="rounded-full bg-pitch-50 px-3 py-1 text-sm text-pitch-900">
              {sport}
            </li>
          ))}
        </ul>
      </section>

      <section aria-label="Where to go" className="mt-10 grid gap-4 sm:grid-cols-3">
        {ENTRY_POINTS.map((entry) => (
          <Link
            key={entry.href}
            href={entry.href}
            className="block rounded-lg border border-slate-200 p-5 hover:border-pitch-600 focus-visible:outline-2 focus-visible:outline-pitch-600"
          >
            <h2 className="font-semibold text-pitch-900">{entry.title}</h2>
            <p className="mt-2 text-sm text-slate-700">{entry.text}</p>
          </Link>
        ))}
      </section>

      <section aria-labelledby="keys-title" className="mt-10 max-w-3xl">
        <h2 id="keys-title" className="text-xl font-semibold">
          Two kinds of key
        </h2>
        <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-2">
          <div className="rounded-lg bg-slate-50 p-4">
            <dt className="font-medium">
              Sandbox <code>svc_sb_…</code>
            </dt>
            <dd className="mt-1 text-slate-700">
              One per organisation: one sport, the feed 60 seconds behind, 30 days.
            </dd>
          </div>
          <div className="rounded-lg bg-slate-50 p-4">
            <dt className="font-medium">
              Production <code>svc_sk_…</code>
            </dt>
            <dd className="mt-1 text-slate-700">
              Real time, the sports of your plan; once your licence and plan are in place.
            </dd>
          </div>
        </dl>
        <pre className="mt-4 overflow-x-auto rounded-lg bg-slate-900 p-4 text-sm text-slate-100">
          <code>{`curl -H "Authorization: Bearer $API_KEY" http://localhost:3000/api/v1/events?status=live`}</code>
        </pre>
      </section>
    </>
  );
}
