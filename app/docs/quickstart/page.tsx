import { readFileSync } from "node:fs";
import path from "node:path";
import type { Metadata } from "next";
import { micromark } from "micromark";

export const metadata: Metadata = { title: "Quickstart" };

// docs/quickstart.md, the one text of the quickstart, as a page of this site. Its links to files of
// the repository (the example, the client's README) lead nowhere here: they become plain text.
function quickstartHtml(): string {
  const markdown = readFileSync(path.join(process.cwd(), "docs", "quickstart.md"), "utf8");
  // micromark escapes any HTML in the text; the file is ours all the same.
  return (
    micromark(markdown)
      .replace(/<a href="(?!\/|https?:|#)[^"]*">(.*?)<\/a>/g, "$1")
      // A code block wider than the screen scrolls: the keyboard must reach it too.
      .replaceAll("<pre>", '<pre tabindex="0">')
  );
}

export default function QuickstartPage() {
  return (
    <article
      className="max-w-3xl space-y-4 text-slate-800 [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_h1]:text-3xl [&_h1]:font-semibold [&_h1]:tracking-tight [&_h2]:pt-4 [&_h2]:text-xl [&_h2]:font-semibold [&_li]:ml-6 [&_li]:list-disc [&_pre]:overflow-x-auto [&_pre]:rounded [&_pre]:bg-slate-900 [&_pre]:p-4 [&_pre]:text-sm [&_pre]:text-slate-100 [&_pre_code]:bg-transparent [&_pre_code]:p-0"
      dangerouslySetInnerHTML={{ __html: quickstartHtml() }}
    />
  );
}
