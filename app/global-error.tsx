"use client";

import "./globals.css";
import { useEffect } from "react";
import { readTheme, THEME_COOKIE } from "@/lib/time-display";

// The last resort, when the root layout itself failed: a page of its own, in the viewer's theme.
export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  useEffect(() => {
    const chosen = readTheme(
      document.cookie
        .split("; ")
        .find((pair) => pair.startsWith(`${THEME_COOKIE}=`))
        ?.slice(THEME_COOKIE.length + 1),
    );
    if (chosen !== "system") document.documentElement.dataset.theme = chosen;
  }, []);
  return (
    <html lang="en">
      <body className="min-h-screen bg-white px-4 py-10 text-center text-slate-900 antialiased">
        <main>
          <h1 className="text-2xl font-semibold tracking-tight">The service could not show this page</h1>
          <p className="mt-2 text-slate-700">Something went wrong on our side. Reload in a moment.</p>
          {error.digest ? <p className="mt-2 text-sm text-slate-600">Reference: {error.digest}</p> : null}
        </main>
      </body>
    </html>
  );
}
