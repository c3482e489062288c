import type { Metadata } from "next";
import { NotYetAvailable } from "@/components/coming-soon";

export const metadata: Metadata = { title: "Console" };

export default function ConsolePage() {
  return (
    <NotYetAvailable title="Console">
      Organisation admins will sign in here to record their licence, choose a plan, create the sandbox key and
      production keys, revoke keys, and follow their usage. Until then, operators manage organisations and keys with{" "}
      <code className="rounded bg-slate-100 px-1">npm run admin</code>.
    </NotYetAvailable>
  );
}
