import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { sessionUserId } from "@/app/console/_lib/auth";
import { EventView } from "@/components/board/event-view";
import { loadConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Live event" };

export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!(await sessionUserId())) redirect(`/console/sign-in?next=${encodeURIComponent(`/board/${id}`)}`);
  return <EventView id={id} pingSeconds={loadConfig().STREAM_PING_SECONDS} />;
}
