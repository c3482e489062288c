import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ERRORS } from "../../lib/api/request/errors.ts";
import { problemType } from "../../lib/http/problem.ts";
import { SERVICE_ERRORS } from "../../lib/http/service-errors.ts";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// Every problem body's `type` leads to the service's own page of error codes, at the section of
// its code (RFC 9457: a reference resolved against the request's URL).

const ALL_ERRORS = [...Object.entries(API_ERRORS), ...Object.entries(SERVICE_ERRORS)];

describe("problem types", () => {
  let server: RunningServer;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer({ DATA_DIR: migratedDataDir() });
  });
  afterAll(() => server?.stop());

  /** The section of the page `type` resolves to from `requestUrl`, or null when it has none. */
  async function sectionOf(type: string, requestUrl: string): Promise<string | null> {
    const url = new URL(type, requestUrl);
    expect(url.origin).toBe(new URL(server.url).origin);
    const page = `${url.origin}${url.pathname}`;
    if (!pages.has(page)) {
      const response = await fetch(page);
      expect(response.status, page).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      pages.set(page, await response.text());
    }
    const id = url.hash.slice(1);
    return new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</dd>`).exec(pages.get(page)!)?.[1] ?? null;
  }

  it("names each code once, across the API's table and the rest of the service's", () => {
    const service = Object.keys(SERVICE_ERRORS);
    expect(Object.keys(API_ERRORS).filter((code) => service.includes(code))).toEqual([]);
  });

  it("resolves every code's type to a section naming the code, its status and its title", async () => {
    for (const [code, error] of ALL_ERRORS) {
      const section = await sectionOf(problemType(code), `${server.url}/api/v1/events/some-event`);
      expect(section, code).not.toBeNull();
      expect(section).toContain(`>${code}</a>`);
      expect(section).toContain(`${error.status} · ${error.title}`);
    }
  });

  it("sends answers whose type leads there, from the API and from the rest of the service", async () => {
    const answers = [
      await fetch(`${server.url}/api/v1/events?limit=0x10`, { headers: { "x-api-key": "svc_sk_nope" } }),
      await fetch(`${server.url}/api/v1/events`),
      await fetch(`${server.url}/api/feed/v1/updates`, { method: "POST", body: "{}" }),
    ];
    const codes: string[] = [];
    for (const answer of answers) {
      expect(answer.headers.get("content-type")).toBe("application/problem+json");
      const body = (await answer.json()) as { type: string; code: string };
      expect(body.type).toBe(`/docs/errors#${body.code}`);
      expect(await sectionOf(body.type, answer.url), body.code).not.toBeNull();
      codes.push(body.code);
    }
    expect(codes).toEqual(["invalid_api_key", "missing_api_key", "ingest_disabled"]);
  });
});
