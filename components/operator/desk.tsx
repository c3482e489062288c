import Link from "next/link";
import { Time } from "@/components/display-settings";

// The desk's small layout pieces, beside the console's (components/console): the same spacing and
// type, each colour with its dark counterpart, so the desk follows the system's light or dark.

export const deskText = {
  strong: "text-slate-900 dark:text-slate-100",
  muted: "text-slate-700 dark:text-slate-300",
  label: "text-slate-600 dark:text-slate-400",
  link: "text-pitch-700 underline underline-offset-4 dark:text-emerald-300",
};

export const cardClass = "rounded-lg border border-slate-300 p-4 dark:border-slate-700";

export function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={`${id}-title`} className="mt-8 first:mt-0">
      <h2 id={`${id}-title`} className={`mb-3 text-lg font-semibold ${deskText.strong}`}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Label and value pairs, two columns from a small tablet up. */
export function Facts({ items }: { items: [label: string, value: React.ReactNode][] }) {
  return (
    <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0">
          <dt className={deskText.label}>{label}</dt>
          <dd className={`break-words ${deskText.strong}`}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const TONES = {
  waiting: "border-amber-500 bg-amber-50 text-amber-950 dark:bg-amber-950 dark:text-amber-100",
  good: "border-pitch-600 bg-pitch-50 text-pitch-900 dark:bg-emerald-950 dark:text-emerald-100",
  bad: "border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100",
  neutral: "border-slate-400 bg-slate-100 text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100",
};

export type Tone = keyof typeof TONES;

export function Badge({ tone, children }: { tone: Tone; children: React.ReactNode }) {
  return (
    <span className={`inline-block rounded-full border px-2 py-0.5 text-xs font-medium ${TONES[tone]}`}>
      {children}
    </span>
  );
}

/** A figure that leads somewhere: the desk's counts of what waits. */
export function Count({ href, label, value }: { href: string; label: string; value: number }) {
  return (
    <Link
      href={href}
      className={`${cardClass} block hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-pitch-600 dark:hover:bg-slate-900`}
    >
      <span className={`block text-3xl font-semibold ${deskText.strong}`}>{value}</span>
      <span className={`block text-sm ${deskText.muted}`}>{label}</span>
    </Link>
  );
}

/** A moment as every page shows one (the viewer's zone, UTC on hover), or a dash when there is none. */
export function Moment({ at }: { at: Date | string | null }) {
  return at ? <Time at={at} /> : <>—</>;
}
