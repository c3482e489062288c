"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export type NavLink = { href: string; label: string };

const LINKS: NavLink[] = [
  { href: "/console", label: "Overview" },
  { href: "/console/keys", label: "API keys" },
  { href: "/console/usage", label: "Usage" },
  { href: "/console/requests", label: "Requests" },
  { href: "/console/webhooks", label: "Webhooks" },
  { href: "/console/licence", label: "Licence" },
  { href: "/console/plan", label: "Plan" },
  { href: "/console/members", label: "Members" },
  { href: "/console/security", label: "Security" },
  { href: "/console/settings", label: "Mail" },
  { href: "/console/audit", label: "Audit log" },
];

/**
 * The pages of a signed-in area, the current one marked: the console's by default, the desk's
 * with its own `label` and `links`. The first link is the area's root; a page below another
 * link (an organisation's page under Organisations) belongs to that link.
 */
export function ConsoleNav({ label = "Console", links = LINKS }: { label?: string; links?: NavLink[] }) {
  const pathname = usePathname();
  const root = links[0]?.href;
  return (
    <nav aria-label={label} className="col-span-2 mt-3 md:mt-4">
      {/* On a phone, small tabs in two rows; in a column beside the page on wider screens. */}
      <ul className="flex flex-wrap gap-1 md:flex-col md:gap-1">
        {links.map((link) => {
          const current = pathname === link.href || (link.href !== root && pathname.startsWith(`${link.href}/`));
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-md px-2 py-1 text-xs focus-visible:outline-2 focus-visible:outline-pitch-600 md:px-3 md:py-2 md:text-sm ${
                  current
                    ? "bg-pitch-700 font-medium text-white"
                    : "bg-slate-100 text-slate-900 hover:bg-slate-200 md:bg-transparent dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700 md:dark:bg-transparent"
                }`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
