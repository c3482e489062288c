"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/console", label: "Overview" },
  { href: "/console/keys", label: "API keys" },
  { href: "/console/usage", label: "Usage" },
  { href: "/console/requests", label: "Requests" },
  { href: "/console/webhooks", label: "Webhooks" },
  { href: "/console/licence", label: "Licence" },
  { href: "/console/plan", label: "Plan" },
  { href: "/console/members", label: "Members" },
  { href: "/console/audit", label: "Audit log" },
];

export function ConsoleNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Console" className="col-span-2 mt-3 md:mt-4">
      {/* On a phone, small tabs in two rows; in a column beside the page on wider screens. */}
      <ul className="flex flex-wrap gap-1.5 md:flex-col md:gap-1">
        {LINKS.map((link) => {
          const current = pathname === link.href;
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-md px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-pitch-600 md:px-3 md:py-2 ${
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
