import type { Metadata } from "next";
import { NotYetAvailable } from "@/components/coming-soon";

export const metadata: Metadata = { title: "API reference" };

export default function DocsPage() {
  return (
    <NotYetAvailable title="API reference">
      The reference of <code className="rounded bg-slate-100 px-1">/api/v1</code>, generated from the same schemas that
      validate every request, with examples to run against this server.
    </NotYetAvailable>
  );
}
