import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "No such event" };

export default function EventNotFound() {
  return (
    <div className="py-10 text-center">
      <h1 className="text-2xl font-semibold tracking-tight">No such event</h1>
      <p className="mt-2 text-slate-700">
        There is no event with this id. Check the link, or pick an event on the live board.
      </p>
      <Link href="/board" className="mt-4 inline-block text-pitch-700 underline underline-offset-4">
        ← Live board
      </Link>
    </div>
  );
}
