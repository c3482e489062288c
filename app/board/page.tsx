import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { sessionUserId } from "@/app/console/_lib/auth";
import { LiveBoard } from "@/components/board/live-board";
import { loadConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Live board" };

export default async function BoardPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  if (!(await sessionUserId())) {
    const query = new URLSearchParams(await searchParams).toString();
    redirect(`/console/sign-in?next=${encodeURIComponent(query ? `/board?${query}` : "/board")}`);
  }
  return (
    <Suspense>
      <LiveBoard pingSeconds={loadConfig().STREAM_PING_SECONDS} />
    </Suspense>
  );
}
