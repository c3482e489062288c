import { readFileSync } from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { servedMarkdownHtml } from "@/lib/docs/served-markdown";

export const metadata: Metadata = { title: "Quickstart" };

// docs/quickstart.md, the one text of the quickstart, as a page of this site: its links to the
// site's pages stay links, and a file of the repository is named with where it is.
function quickstartHtml(): string {
  const markdown = readFileSync(path.join(process.cwd(), "docs", "quickstart.md"), "utf8");
  return servedMarkdownHtml(markdown, "docs/quickstart.md");
}

export default function QuickstartPage() {
  return (
    <article
      className="max-w-3xl space-y-4 text-slate-800 [&_a]:text-pitch-700 [&_a]:underline [&_a]:underline-offset-4 [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_h1]:text-3xl [&_h1]:font-semibold [&_h1]:tracking-tight [&_h2]:pt-4 [&_h2]:text-xl [&_h2]:font-semibold [&_li]:ml-6 [&_li]:list-disc [&_pre]:overflow-x-auto [&_pre]:rounded [&_pre]:bg-slate-900 [&_pre]:p-4 [&_pre]:text-sm [&_pre]:text-slate-100 [&_pre_code]:bg-transparent [&_pre_code]:p-0"
      dangerouslySetInnerHTML={{ __html: quickstartHtml() }}
    />
  );
}
