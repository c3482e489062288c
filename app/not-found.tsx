import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Page not found" };

// Every path no page serves: in the site's frame and theme, rather than Next's own white page.
export default function NotFound() {
  return (
    <div className="py-10 text-center">
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="mt-2 text-slate-700">
        There is no page at this address. Check the link, or start from one of these.
      </p>
      <p className="mt-4 flex flex-wrap justify-center gap-x-6 gap-y-2">
        <Link href="/" className="text-pitch-700 underline underline-offset-4">
          Home
        </Link>
        <Link href="/console" className="text-pitch-700 underline underline-offset-4">
          Console
        </Link>
        <Link href="/docs" className="text-pitch-700 underline underline-offset-4">
          API reference
        </Link>
        <Link href="/status" className="text-pitch-700 underline underline-offset-4">
          Status
        </Link>
      </p>
    </div>
  );
}
