import path from "node:path";
import { micromark } from "micromark";

// A Markdown file of docs/ as a page of this site. The site's own addresses it names (`/docs`,
// `/console`) become links, and so do its links to files the site serves; its links to files of the
// repository, which a reader of the site cannot open, become their text with the file's path and
// where it is. The file itself stays as it reads in the repository.

/** Repository files that the site serves as pages, by the page's address. */
const SERVED: Record<string, string> = {
  "docs/quickstart.md": "/docs/quickstart",
};

/** The site's addresses that a code span naming one links to. */
const SITE_PATHS = new Set([
  "/console",
  "/board",
  "/status",
  "/docs",
  "/docs/errors",
  "/docs/quickstart",
  "/api/v1/openapi.json",
  "/api/v1/asyncapi.json",
  "/llms.txt",
]);

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** The HTML of `markdown`, the text of `file` (a path from the repository's root). */
export function servedMarkdownHtml(markdown: string, file: string): string {
  // micromark escapes any HTML in the text; the file is ours all the same.
  return (
    micromark(markdown)
      .replace(/<a href="([^"]*)">(.*?)<\/a>/g, (link, href: string, text: string) => {
        if (/^(\/|https?:|mailto:|#)/.test(href)) return link;
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), href.split("#", 1)[0]!));
        const page = SERVED[target];
        if (page) return `<a href="${page}">${text}</a>`;
        const named = text.includes(target) ? "" : ` (<code>${escapeHtml(target)}</code>`;
        return `${text}${named ? `${named} in the service's repository)` : " (in the service's repository)"}`;
      })
      // Not inside a link or a code block: an address in running text.
      .replace(/(?<!<a [^>]*>)<code>(\/[^<]*)<\/code>/g, (span, address: string) =>
        SITE_PATHS.has(address) ? `<a href="${address}">${span}</a>` : span,
      )
      // A code block wider than the screen scrolls: the keyboard must reach it too.
      .replaceAll("<pre>", '<pre tabindex="0">')
  );
}
