import { currentInstance } from "@/lib/instance";
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { sessionUserId } from "@/app/console/_lib/auth";
import { database } from "@/app/console/_lib/console";
import { LiveBoard } from "@/components/board/live-board";
import { memberCoverage } from "@/lib/api/credentials/member-entitlement";
import { now } from "@/lib/clock";
import { consoleAccess } from "@/lib/console/access";

export const metadata: Metadata = { title: "Live board" };

export default async function BoardPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const userId = await sessionUserId();
  if (!userId) {
    const query = new URLSearchParams(await searchParams).toString();
    redirect(`/console/sign-in?next=${encodeURIComponent(query ? `/board?${query}` : "/board")}`);
  }
  // The sports the organisation's members read, so that the board can say why one is empty.
  const db = await database();
  const access = await consoleAccess(db, userId);
  const coverage = access
    ? await memberCoverage(db, access.organisation.id, access.organisation.planCode, now())
    : null;
  return (
    <Suspense>
      <LiveBoard pingSeconds={currentInstance().config.STREAM_PING_SECONDS} coverage={coverage} />
    </Suspense>
  );
}
