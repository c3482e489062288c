"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/console", label: "Overview" },
  { href: "/console/keys", label: "API keys" },
  { href: "/console/usage", label: "Usage" },
  { href: "/console/licence", label: "Licence" },
  { href: "/console/plan", label: "Plan" },
  { href: "/console/members", label: "Members" },
  { href: "/console/audit", label: "Audit log" },
];

export function ConsoleNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Console" className="mt-4">
      <ul className="flex flex-wrap gap-2 md:flex-col md:gap-1">
        {LINKS.map((link) => {
          const current = pathname === link.href;
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-md px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-pitch-600 ${
                  current
                    ? "bg-pitch-700 font-medium text-white"
                    : "bg-slate-100 text-slate-900 hover:bg-slate-200 md:bg-transparent"
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
