import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { cookies } from "next/headers";
import { connection } from "next/server";
import { DisplaySettingsControls, DisplaySettingsProvider } from "@/components/display-settings";
import { QueryProvider } from "@/components/query-provider";
import { readTheme, readTimeMode, readZone, THEME_COOKIE, TIMES_COOKIE, ZONE_COOKIE } from "@/lib/time-display";
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
  const jar = await cookies();
  const settings = {
    theme: readTheme(jar.get(THEME_COOKIE)?.value),
    times: readTimeMode(jar.get(TIMES_COOKIE)?.value),
    zone: readZone(jar.get(ZONE_COOKIE)?.value),
  };
  return (
    // The theme chosen in the display settings, from the first paint; without one, the system's.
    <html lang="en" data-theme={settings.theme === "system" ? undefined : settings.theme}>
      <body className="min-h-screen bg-white text-slate-900 antialiased">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:p-2">
          Skip to content
        </a>
        <DisplaySettingsProvider initial={settings}>
          <header className="border-b border-slate-200">
            {/* On a phone: the name and the display settings, then the pages; one row from md up. */}
            <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
              <Link href="/" className="order-1 font-semibold text-pitch-900">
                Sports Event Data
              </Link>
              <nav aria-label="Main" className="order-3 w-full md:order-2 md:w-auto">
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
              <div className="order-2 ml-auto md:order-3">
                <DisplaySettingsControls />
              </div>
            </div>
          </header>
          <main id="main" className="mx-auto max-w-5xl px-4 py-6 sm:py-10">
            <QueryProvider>{children}</QueryProvider>
          </main>
        </DisplaySettingsProvider>
      </body>
    </html>
  );
}
