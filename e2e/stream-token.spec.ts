import { expect, test } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { StreamTokens } from "../lib/keys/stream-token.ts";
import { freePort } from "../testing/ports.ts";
import { startProcess, type StartedProcess } from "../testing/processes.ts";
import { liveEvent, priceChange } from "../testing/feed-updates.ts";
import { startLiveServer, type LiveServer } from "./support/live-server.ts";

// A key holder's own site on another origin, as the quickstart builds it (docs/examples/browser-board):
// its server mints stream tokens with the key, and its page follows the odds board with the
// browser's own EventSource, through a restart of the service. Run as the example is written.

// The service is given this secret so that the test can sign a token as it does, an expired one.
const SECRET = "the stream token suite's secret, 0123456789abcdef";
const EVENT = "tok-ars-che";

let service: LiveServer;
let site: StartedProcess;
let siteUrl: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  service = await startLiveServer({ AUTH_SECRET: SECRET }, { keyHolder: { plan: "pro", sandboxSport: "soccer" } });
  await service.ingest([liveEvent(EVENT, "soccer", "Premier League", { home: "Arsenal", away: "Chelsea" })]);
  site = startProcess("docs/examples/browser-board/server.mjs", {
    env: { KEY: service.keyHolder!.production.key, API_URL: service.url, PORT: String(await freePort()) },
    ready: /The board is on (http:\/\/\S+)/,
    name: "the key holder's site",
  });
  siteUrl = (await site.ready)[1]!;
  expect(new URL(siteUrl).origin).not.toBe(new URL(service.url).origin);
});

test.afterAll(async () => {
  await site?.stop();
  await service?.stop();
});

test("a page of another origin follows the board with EventSource and a token, and resumes after a restart", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "the browser's EventSource is the same on a phone");
  const streams: { url: string; status: number }[] = [];
  page.on("response", (response) => {
    if (response.url().includes("/api/v1/odds/stream"))
      streams.push({ url: response.url(), status: response.status() });
  });
  await page.goto(siteUrl);
  const state = page.locator("#state");
  const row = page.locator(`tr[data-event-id="${EVENT}"]`);
  await expect(state).toHaveText("live");
  await expect(row).toContainText("2.10 / 3.40 / 3.20");
  // The key never reaches the page: only a token, in the stream's URL.
  expect(streams[0]!.url).toMatch(/[?&]token=svc_st_/);
  expect(await page.content()).not.toContain(service.keyHolder!.production.key);

  await service.ingest([priceChange(EVENT, [2.2, 3.3, 3.1])]);
  await expect(row).toContainText("2.20 / 3.30 / 3.10");

  await service.restart();
  for (const prices of [
    [2.3, 3.2, 3.0],
    [2.5, 3.1, 2.8],
  ]) {
    await service.ingest([priceChange(EVENT, prices)]);
  }
  await expect(state).toHaveText("live", { timeout: 30_000 });
  await expect(row).toContainText("2.50 / 3.10 / 2.80");
  // Resumed from its last id: every change once, in order, and no second snapshot to cover a gap.
  const ids = await page.evaluate(() => (window as unknown as { boardIds: number[] }).boardIds);
  expect(ids.length).toBeGreaterThanOrEqual(4);
  expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
  await expect(page.locator("#notice")).toBeEmpty();
  expect(streams.filter((s) => s.status === 200).length).toBeGreaterThanOrEqual(2);
});

test("a token is refused on a REST endpoint, and once expired", async ({ page }, info) => {
  test.skip(info.project.name !== "desktop", "the server's rules are the same on a phone");
  await page.goto(siteUrl);
  const keyId = service.keyHolder!.production.id;
  const expired = new StreamTokens(SECRET).mint({
    keyId,
    sport: null,
    eventId: null,
    expiresAt: new Date(Date.now() - 60_000),
    mintedFrom: "127.0.0.1",
  });
  const answers = await page.evaluate(
    async ({ api, expired }) => {
      const { token } = (await (await fetch("/stream-token")).json()) as { token: string };
      const problem = async (path: string) => {
        const answer = await fetch(`${api}${path}`);
        return { status: answer.status, code: ((await answer.json()) as { code: string }).code };
      };
      // What a page sees of a refused EventSource: it closes for good, without a message.
      const closed = await new Promise<boolean>((resolve) => {
        const source = new EventSource(`${api}/api/v1/odds/stream?token=${expired}`);
        source.onopen = () => resolve(false);
        source.onerror = () => resolve(source.readyState === EventSource.CLOSED);
      });
      return {
        rest: await problem(`/api/v1/odds?token=${token}`),
        expired: await problem(`/api/v1/odds/stream?token=${expired}`),
        closed,
      };
    },
    { api: service.url, expired },
  );
  expect(answers).toEqual({
    rest: { status: 401, code: "invalid_api_key" },
    expired: { status: 401, code: "token_expired" },
    closed: true,
  });
});

test("the client package, in a page of another origin, follows the board with a token", async ({ page }, info) => {
  test.skip(info.project.name !== "desktop", "the browser's fetch and streams are the same on a phone");
  // The package as it is published: its dist/, built with its own tsc, loaded by the browser as ESM.
  const built = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "packages/client/tsconfig.json"]);
  expect(built.status, String(built.stdout)).toBe(0);
  // A key holder's page on another origin of this machine, loading the package's dist/ as ESM.
  const pageHtml = `<!doctype html><title>Client</title><ul id="prices"></ul><script type="module">
    import { createClient } from "/client/index.js";
    const [api, token] = decodeURIComponent(location.hash.slice(1)).split(" ");
    const client = createClient({ token }, { baseUrl: api });
    for await (const message of client.followBoard({ sport: "soccer" })) {
      const events = message.event === "snapshot" ? message.data.events : [];
      const markets = message.event === "markets" ? message.data.markets : events.flatMap((e) => e.markets);
      for (const market of markets) {
        const item = document.createElement("li");
        item.textContent = market.id + " " + market.outcomes.map((o) => o.price.toFixed(2)).join(" / ");
        document.getElementById("prices").append(item);
      }
    }
  </script>`;
  const clientSite = createServer((request, response) => {
    if (request.url === "/") return response.writeHead(200, { "content-type": "text/html" }).end(pageHtml);
    const file = path.join("packages/client/dist", path.basename(request.url ?? ""));
    if (!request.url?.startsWith("/client/") || !existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => clientSite.listen(0, "127.0.0.1", resolve));
  const clientSiteUrl = `http://127.0.0.1:${(clientSite.address() as AddressInfo).port}`;
  const minted = await fetch(`${service.url}/api/v1/stream-token?sport=soccer`, {
    headers: { authorization: `Bearer ${service.keyHolder!.production.key}` },
  });
  const { token } = ((await minted.json()) as { data: { token: string } }).data;
  try {
    await page.goto(`${clientSiteUrl}/#${encodeURIComponent(`${service.url} ${token}`)}`);
    const prices = page.locator("#prices");
    await expect(prices).toContainText(`${EVENT}-match_winner `);
    await service.ingest([priceChange(EVENT, [1.9, 3.6, 3.9])]);
    await expect(prices).toContainText("1.90 / 3.60 / 3.90");
  } finally {
    clientSite.close();
  }
});
