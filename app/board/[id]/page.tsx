import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { sessionUserId } from "@/app/console/_lib/auth";
import { EventView } from "@/components/board/event-view";
import { currentInstance } from "@/lib/instance";

export const metadata: Metadata = { title: "Live event" };

export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!(await sessionUserId())) redirect(`/console/sign-in?next=${encodeURIComponent(`/board/${id}`)}`);
  // An event the feed has never had is missing for every member: a 404 at once, rather than a page
  // that goes looking for it. One the member's view cannot show is the page's own to explain.
  if (!currentInstance().views.present.get(id)) notFound();
  const config = currentInstance().config;
  return <EventView id={id} pingSeconds={config.STREAM_PING_SECONDS} historySeconds={config.HISTORY_SECONDS} />;
}
