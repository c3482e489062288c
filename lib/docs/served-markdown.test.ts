import { describe, expect, it } from "vitest";
import { servedMarkdownHtml } from "./served-markdown.ts";

describe("a docs/ file as a page of the site", () => {
  it("keeps links to what the site serves, and says where a repository file is", () => {
    const html = servedMarkdownHtml(
      [
        "See [the reference](/docs), [error codes](/docs/errors#not_found) and [Scalar](https://scalar.com).",
        "Its [README](../packages/client/README.md) and [Live streams](streams.md#resuming).",
        "[`docs/examples/browser-board`](examples/browser-board) is a whole site.",
      ].join("\n\n"),
      "docs/quickstart.md",
    );
    expect(html).toContain('<a href="/docs">the reference</a>');
    expect(html).toContain('<a href="/docs/errors#not_found">error codes</a>');
    expect(html).toContain('<a href="https://scalar.com">Scalar</a>');
    expect(html).toContain("README (<code>packages/client/README.md</code> in the service's repository)");
    expect(html).toContain("Live streams (<code>docs/streams.md</code> in the service's repository)");
    // A link whose text is its path is not told twice.
    expect(html).toContain("<code>docs/examples/browser-board</code> (in the service's repository) is a whole site");
    expect(html).not.toMatch(/href="(?!\/|https)/);
  });

  it("links the site's own addresses named in the text, and nothing in a code block", () => {
    const html = servedMarkdownHtml(
      "In the console (`/console`), see `/docs/errors` and `/api/v1/openapi.json`, not `/api/v1/me`.\n\n```sh\ncurl /docs\n```",
      "docs/quickstart.md",
    );
    expect(html).toContain('<a href="/console"><code>/console</code></a>');
    expect(html).toContain('<a href="/docs/errors"><code>/docs/errors</code></a>');
    expect(html).toContain('<a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>');
    expect(html).toContain("not <code>/api/v1/me</code>.");
    expect(html).toContain("curl /docs");
  });

  it("lets the keyboard reach a code block that scrolls", () => {
    expect(servedMarkdownHtml("```sh\ncurl x\n```", "docs/quickstart.md")).toContain('<pre tabindex="0">');
  });
});
