"use client";

// A page that failed while rendering: in the site's frame and theme. The error itself is in the
// server's log; the page shows only its digest, by which the log finds it.
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="py-10 text-center">
      <h1 className="text-2xl font-semibold tracking-tight">This page could not be shown</h1>
      <p className="mt-2 text-slate-700">Something went wrong on our side. Try again in a moment.</p>
      {error.digest ? <p className="mt-2 text-sm text-slate-600">Reference: {error.digest}</p> : null}
      <button
        type="button"
        onClick={reset}
        className="mt-4 inline-flex min-h-11 items-center rounded-md bg-pitch-700 px-4 py-2 font-medium text-white hover:bg-pitch-900"
      >
        Try again
      </button>
    </div>
  );
}
