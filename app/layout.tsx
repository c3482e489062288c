import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { QueryProvider } from "@/components/query-provider";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Sports Event Data", template: "%s · Sports Event Data" },
  description: "Live and upcoming sports events, lineups, in-play odds and streams over one HTTP API.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

const NAV = [
  { href: "/console", label: "Console" },
  { href: "/board", label: "Live board" },
  { href: "/docs", label: "API reference" },
];

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request: its scripts carry the nonce of its own Content-Security-
  // Policy (proxy.ts), which HTML made at build time could not know.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-slate-900 antialiased">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
          Skip to content
        </a>
        <header className="border-b border-slate-200">
          <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
            <Link href="/" className="font-semibold text-pitch-900">
              Sports Event Data
            </Link>
            <ul className="flex flex-wrap gap-x-5 text-sm">
              {NAV.map((item) => (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    className="text-slate-700 underline-offset-4 hover:text-pitch-700 hover:underline"
                  >
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </header>
        <main id="main" className="mx-auto max-w-5xl px-4 py-6 sm:py-10">
          <QueryProvider>{children}</QueryProvider>
        </main>
      </body>
    </html>
  );
}
