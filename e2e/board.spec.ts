import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { signIn, startLiveServer, type LiveServer } from "./support/live-server.ts";
import { zonedClock } from "../components/board/past-moment.ts";
import { eventChange, liveEvent, market, priceChange } from "../testing/feed-updates.ts";
import { expectFitsAndAccessible } from "./support/page-checks.ts";
import { followSignUpMail } from "./support/mailbox.ts";

// The live board and the event page, as viewers use them: a server of this suite's own, fed
// through the provider ingest, followed by real Chromium on a desktop and a phone.

const SANDBOX_DELAY_SECONDS = 6;
const PING_SECONDS = 3;
/** The live views (streams) one member may hold open at once. */
const LIVE_VIEWS = 4;

let server: LiveServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // A server of its own starts slowly on a busy machine.
  test.setTimeout(120_000);
  server = await startLiveServer({
    SANDBOX_DELAY_SECONDS: String(SANDBOX_DELAY_SECONDS),
    STREAM_PING_SECONDS: String(PING_SECONDS),
    SESSION_STREAMS: String(LIVE_VIEWS),
  });
  await server.ingest([
    liveEvent("e2e-ars-che", "soccer", "Premier League", { home: "Arsenal", away: "Chelsea" }),
    liveEvent("e2e-liv-eve", "soccer", "Premier League", { home: "Liverpool", away: "Everton" }),
    liveEvent("e2e-rma-bar", "soccer", "La Liga", { home: "Real Madrid", away: "Barcelona" }),
    liveEvent("e2e-bos-lal", "basketball", "NBA", { home: "Boston", away: "Los Angeles" }, [1.7, 2.15]),
  ]);
});

test.afterAll(async () => {
  await server?.stop();
});

const row = (page: Page, id: string) => page.locator(`[data-testid="board-row"][data-event-id="${id}"]`);
const winnerCells = (page: Page, id: string) =>
  row(page, id).locator('[data-market-type="match_winner"] [data-testid="price"]');

async function checkPage(page: Page, name: string, project: string): Promise<void> {
  await expectFitsAndAccessible(page, name);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    if (scheme === "dark") {
      const dark = await new AxeBuilder({ page }).withTags(["wcag2aa"]).analyze();
      expect(
        dark.violations.map((v) => v.id),
        `${name} in the dark theme`,
      ).toEqual([]);
    }
    await page.screenshot({ path: `test-results/screenshots/${name}-${scheme}-${project}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("the board lists the events in play, grouped, and a visitor signs in on the way", async ({ page }, info) => {
  await signIn(page, server.url, "/board", server.demo);
  await expect(page.getByRole("heading", { level: 1, name: "Live board" })).toBeVisible();
  await expect(page.getByTestId("status-chip")).toHaveText("Live");
  await expect(page.locator('[data-testid="board-row"]')).toHaveCount(4);
  await expect(page.getByRole("heading", { level: 2, name: "Soccer" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Premier League" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "NBA" })).toBeVisible();
  await expect(row(page, "e2e-ars-che")).toContainText("Arsenal");
  // A row that has not changed for 5 s shows its age, and the age goes on counting.
  const age = row(page, "e2e-bos-lal").getByTestId("row-age");
  await expect(age).toBeVisible({ timeout: 10_000 });
  const first = Number(/^(\d+)s ago$/.exec((await age.textContent()) ?? "")?.[1]);
  expect(first).toBeGreaterThanOrEqual(5);
  await expect(age).toHaveText(new RegExp(`^(${first + 1}|${first + 2}|${first + 3})s ago$`), { timeout: 5_000 });
  if (info.project.name === "phone") {
    // One column and the main market only.
    await expect(row(page, "e2e-ars-che").locator('[data-market-type="handicap"]')).toBeHidden();
  } else {
    await expect(row(page, "e2e-ars-che").locator('[data-market-type="handicap"]')).toBeVisible();
  }
  await checkPage(page, "board", info.project.name);
});

test("a price change reaches the board and flashes its way; a suspension locks; a finished event leaves", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "one run is enough: the phone shows the same cells");
  await signIn(page, server.url, "/board", server.demo);
  const home = winnerCells(page, "e2e-liv-eve").first();
  await expect(home).toHaveAttribute("aria-label", "1: 2.10");

  await server.ingest([priceChange("e2e-liv-eve", [2.4, 3.4, 2.9])]);
  await expect(home).toHaveAttribute("data-flash", "up");
  await expect(home).toHaveAttribute("aria-label", "1: 2.40");
  await expect(winnerCells(page, "e2e-liv-eve").nth(2)).toHaveAttribute("data-flash", "down");
  // Only what moved flashes.
  await expect(winnerCells(page, "e2e-liv-eve").nth(1)).not.toHaveAttribute("data-flash", /.+/);

  await server.ingest([priceChange("e2e-liv-eve", [1.95, 3.4, 2.9])]);
  await expect(home).toHaveAttribute("data-flash", "down");
  await expect(home).toHaveAttribute("aria-label", "1: 1.95");

  await server.ingest([priceChange("e2e-liv-eve", [1.95, 3.4, 2.9], "suspended")]);
  await expect(winnerCells(page, "e2e-liv-eve")).toHaveCount(3);
  for (const cell of await winnerCells(page, "e2e-liv-eve").all()) {
    await expect(cell).toHaveAttribute("data-locked", "true");
  }

  await server.ingest([eventChange("e2e-liv-eve", { score: { home: 1, away: 0 } })]);
  await expect(row(page, "e2e-liv-eve").getByTestId("score-home")).toHaveText("1");
  await server.ingest([
    {
      ...eventChange("e2e-liv-eve", { status: "finished" }),
      markets: [market("e2e-liv-eve", "match_winner", [1.95, 3.4, 2.9], "settled")],
    },
  ]);
  await expect(row(page, "e2e-liv-eve")).toHaveCount(0);
  await expect(page.locator('[data-testid="board-row"]')).toHaveCount(3);
});

test("the filters, the odds format and pinned events survive a reload", async ({ page }, info) => {
  await signIn(page, server.url, "/board", server.demo);
  await page.getByLabel("Sport").selectOption("basketball");
  await expect(page).toHaveURL(/sport=basketball/);
  await expect(page.locator('[data-testid="board-row"]')).toHaveCount(1);
  await page.getByLabel("Odds").selectOption("fractional");
  await expect(winnerCells(page, "e2e-bos-lal").first()).toHaveAttribute("aria-label", "1: 7/10");
  await page.reload();
  await expect(page.getByLabel("Sport")).toHaveValue("basketball");
  await expect(page.locator('[data-testid="board-row"]')).toHaveCount(1);
  await expect(winnerCells(page, "e2e-bos-lal").first()).toHaveAttribute("aria-label", "1: 7/10");

  if (info.project.name === "desktop") {
    // Two filters changed one right after the other, as a quick hand does: both hold.
    await page.getByLabel("Sport").selectOption("");
    await page.getByLabel("Market").selectOption("total");
    await expect(page).toHaveURL(/\/board\?market=total$/);
    await expect(page.getByLabel("Sport")).toHaveValue("");
    await expect(row(page, "e2e-ars-che").locator('[data-market-type="match_winner"]')).toHaveCount(0);
    await expect(row(page, "e2e-ars-che").locator('[data-market-type="total"]')).toBeVisible();
    await page.getByLabel("Market").selectOption("");
  } else {
    await page.getByLabel("Sport").selectOption("");
  }
  await page.getByLabel("Odds").selectOption("american");
  await expect(winnerCells(page, "e2e-bos-lal").first()).toHaveAttribute("aria-label", "1: −143");
  // A pinned event comes first, in a group of its own, after a reload too.
  await page.getByRole("button", { name: "Pin Real Madrid v Barcelona" }).click();
  const pinned = page.getByRole("region", { name: "Pinned" });
  await expect(pinned.locator('[data-testid="board-row"]')).toHaveCount(1);
  await page.reload();
  await expect(pinned.locator('[data-event-id="e2e-rma-bar"]')).toBeVisible();
  await page.getByRole("button", { name: "Unpin Real Madrid v Barcelona" }).click();
  await expect(pinned).toHaveCount(0);
  await page.getByLabel("Odds").selectOption("decimal");
});

test("a sandbox organisation sees the Delayed chip and the data its delay behind", async ({ page }, info) => {
  test.skip(info.project.name !== "desktop", "the delay is the server's, the same on a phone");
  // A new organisation has no licence or plan: its members see the sandbox's view.
  await page.goto(`${server.url}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(`Sandbox ${randomBytes(3).toString("hex")}`);
  await page.getByLabel("Your name").fill("Sam Sandbox");
  const sam = `sam-${randomBytes(4).toString("hex")}@sandbox.example`;
  await page.getByLabel("E-mail").fill(sam);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, sam);
  await page.goto(`${server.url}/board`);
  await expect(page.getByTestId("status-chip")).toHaveText(`Delayed ${SANDBOX_DELAY_SECONDS} s`);
  const away = winnerCells(page, "e2e-rma-bar").nth(2);
  await expect(away).toHaveAttribute("aria-label", "2: 3.20");

  const sent = Date.now();
  await server.ingest([priceChange("e2e-rma-bar", [2.1, 3.4, 4.5])]);
  await expect(away).toHaveAttribute("aria-label", "2: 4.50", { timeout: (SANDBOX_DELAY_SECONDS + 5) * 1_000 });
  const shownAfter = Date.now() - sent;
  expect(shownAfter).toBeGreaterThanOrEqual(SANDBOX_DELAY_SECONDS * 1_000);
  await page.screenshot({ path: `test-results/screenshots/board-delayed-${info.project.name}.png` });
});

test("the event page follows its event to the end, with its markets settled", async ({ page }, info) => {
  const id = `e2e-${info.project.name}-final`;
  await server.ingest([liveEvent(id, "soccer", "FA Cup", { home: "Leeds", away: "Spurs" })]);
  await signIn(page, server.url, `/board/${id}`, server.demo);
  await expect(page.getByRole("heading", { level: 1, name: "Leeds v Spurs" })).toBeVisible();
  await expect(page.getByTestId("status-chip")).toHaveText("Live");
  await expect(page.getByTestId("event-score")).toContainText("0 – 0");
  await expect(page.getByRole("heading", { name: "Statistics" })).toBeVisible();
  await expect(page.getByText("Leeds Keeper")).toBeVisible();
  await expect(page.getByTestId("event-market")).toHaveCount(3);

  await server.ingest([eventChange(id, { score: { home: 1, away: 0 }, clock: "52:10", period: "2nd half" })]);
  await expect(page.getByTestId("event-score")).toContainText("1 – 0");
  await expect(page.getByTestId("event-state")).toContainText("2nd half · 52:10");
  await expect(page.getByTestId("timeline")).toContainText("Leeds score: 1–0");
  await server.ingest([priceChange(id, [1.4, 4.5, 7.5], "suspended")]);
  await expect(page.getByTestId("timeline")).toContainText("Match winner suspended");
  await checkPage(page, "event", info.project.name);

  await server.ingest([
    {
      ...eventChange(id, { status: "finished", clock: "90:00", period: "Full time" }),
      markets: ["match_winner", "handicap", "total"].map((type) =>
        market(id, type as "match_winner", type === "match_winner" ? [1.4, 4.5, 7.5] : [1.9, 1.9], "settled"),
      ),
    },
  ]);
  await expect(page.getByTestId("event-state")).toHaveText("Finished");
  // The stream ended with the event: nothing more to follow, and nothing reconnects.
  await expect(page.getByTestId("status-chip")).toHaveText("Final");
  await expect(page.getByTestId("timeline")).toContainText("Full time: markets settled");
  for (const settled of await page.getByTestId("event-market").all()) {
    await expect(settled).toHaveAttribute("data-status", "settled");
  }
  await expect(page.getByRole("listitem").filter({ hasText: "Match winner" }).getByLabel("Home: won")).toBeVisible();
  await page.screenshot({ path: `test-results/screenshots/event-finished-${info.project.name}.png`, fullPage: true });

  // Opened after the end, the event's stream answers 204: the page shows it final and asks once.
  const streamAnswers: number[] = [];
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === `/api/v1/events/${id}/stream`) streamAnswers.push(response.status());
  });
  await page.reload();
  await expect(page.getByTestId("event-state")).toHaveText("Finished");
  await expect(page.getByTestId("status-chip")).toHaveText("Final");
  await expect.poll(() => streamAnswers).toEqual([204]);
  await page.waitForTimeout(3_000); // a page that retried would ask again after the 2 s retry
  expect(streamAnswers).toEqual([204]);

  // Its final state, read from the API and each market's history: the settled markets, their lines
  // up to the end, the lineups, and a timeline that ends at the final whistle.
  await expect(page.getByTestId("event-market")).toHaveCount(3);
  for (const settled of await page.getByTestId("event-market").all()) {
    await expect(settled).toHaveAttribute("data-status", "settled");
  }
  await expect(page.getByRole("listitem").filter({ hasText: "Match winner" }).getByLabel("Home: won")).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: "Match winner" }).getByLabel("Draw: lost")).toBeVisible();
  await expect(page.getByTestId("price-chart")).toHaveCount(3);
  await expect(page.getByText("Leeds Keeper")).toBeVisible();
  await expect(page.getByText("Not published yet.")).toHaveCount(0);
  await expect(page.getByTestId("moment-chosen")).toHaveText("Final");
  await expectFitsAndAccessible(page, "a finished event's page");
  await page.screenshot({ path: `test-results/screenshots/event-final-read-${info.project.name}.png`, fullPage: true });
  // A moment before the end shows the event in play, as the board had it then.
  const slider = page.getByRole("slider", { name: /Moment shown/ });
  await expect(slider).toBeEnabled();
  await slider.focus();
  await slider.press("ArrowLeft");
  await expect(page.getByTestId("past-banner")).toBeVisible();
  await expect(page.getByRole("heading", { name: /^Markets as of / })).toBeVisible();
  await expect(page.getByTestId("event-market").first()).toBeVisible();
  await expect(page.getByText("The event was not on the board at that moment.")).toHaveCount(0);
});

test("the event page charts each market's line movement and shows the event as it was at a moment of the past", async ({
  page,
}, info) => {
  const id = `e2e-${info.project.name}-past`;
  await server.ingest([liveEvent(id, "soccer", "FA Cup", { home: "Derby", away: "Stoke" })]);
  await server.ingest([priceChange(id, [2.3, 3.3, 3.0])]);
  // The state after that change, at a whole second (the timeline's step) before the next one.
  const past = Math.ceil(Date.now() / 1_000);
  const historyReads: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/history")) historyReads.push(request.url());
  });
  await signIn(page, server.url, `/board/${id}`, server.demo);
  await expect(page.getByTestId("status-chip")).toHaveText("Live");

  // A chart per market, each with its prices as a table for screen readers.
  await expect(page.getByTestId("price-chart")).toHaveCount(3);
  const winner = page.getByRole("figure", { name: "Match winner" });
  const states = winner.getByRole("table", { name: /Match winner: prices over time/ }).getByRole("row");
  await expect(states).toHaveCount(3);
  await expect(states.nth(1).getByRole("cell")).toHaveText(["2.10", "3.40", "3.20"]);
  await expect(states.nth(2).getByRole("cell")).toHaveText(["2.30", "3.30", "3.00"]);
  await expect(page.getByRole("figure", { name: "Total goals" }).getByRole("cell")).toHaveText(["1.85", "1.95"]);

  // A live change extends the chart from the stream, without reading the history again.
  await expect.poll(() => Date.now()).toBeGreaterThan(past * 1_000);
  await server.ingest([
    priceChange(id, [2.6, 3.2, 2.7]),
    eventChange(id, { score: { home: 1, away: 0 }, clock: "41:00" }),
  ]);
  await expect(page.getByTestId("event-score")).toContainText("1 – 0");
  await expect(states).toHaveCount(4);
  await expect(states.nth(3).getByRole("cell")).toHaveText(["2.60", "3.20", "2.70"]);
  expect(historyReads).toHaveLength(3);

  // Back along the timeline, a second at a time, to the moment before the goal.
  const slider = page.getByRole("slider", { name: /Moment shown/ });
  const chosen = page.getByTestId("moment-chosen");
  await expect(slider).toBeEnabled();
  // The range's end is the live view: until the page's clock has passed the moment, it is not a
  // moment of the past the walk can reach, and the walk would run on to the window's start.
  await expect.poll(async () => Number(await slider.getAttribute("max"))).toBeGreaterThan(past);
  await slider.focus();
  const label = `as of ${zonedClock(past)}`;
  // Each step waits for the label to move on: read before it did, one step too many would pass the moment.
  for (let step = 0; step < 600; step++) {
    const shown = await chosen.textContent();
    if (shown === label) break;
    await slider.press("ArrowLeft");
    await expect(chosen).not.toHaveText(shown ?? "");
  }
  await expect(chosen).toHaveText(label);
  await expect(page.getByTestId("past-moment")).toHaveText(`As of ${zonedClock(past)} — the past`);
  await expect(page.getByTestId("event-score")).toContainText("0 – 0");
  await expect(page.getByRole("heading", { name: `Markets as of ${zonedClock(past)}` })).toBeVisible();
  const pastWinner = page.getByTestId("event-market").filter({ hasText: "Match winner" });
  await expect(pastWinner.getByLabel("Home: 2.30")).toBeVisible();

  // The stream goes on meanwhile: the chart moves, the past stays as it was.
  await server.ingest([priceChange(id, [2.8, 3.1, 2.6])]);
  await expect(states).toHaveCount(5);
  await expect(page.getByTestId("event-score")).toContainText("0 – 0");
  await checkPage(page, "event-past", info.project.name);

  await page.getByRole("button", { name: "Back to live" }).click();
  await expect(page.getByTestId("past-banner")).toHaveCount(0);
  await expect(chosen).toHaveText("Live");
  await expect(slider).toBeFocused();
  await expect(page.getByTestId("event-score")).toContainText("1 – 0");
  await expect(
    page.getByTestId("event-market").filter({ hasText: "Match winner" }).getByLabel("Home: 2.80"),
  ).toBeVisible();
  expect(historyReads).toHaveLength(3);
});

test("after the server restarts, the board reconnects by itself and catches up with nothing missing", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "one restart is enough");
  await signIn(page, server.url, "/board", server.demo);
  const chip = page.getByTestId("status-chip");
  await expect(chip).toHaveText("Live");
  const cells = winnerCells(page, "e2e-ars-che");
  await expect(cells.first()).toHaveAttribute("aria-label", /^1: /);

  // The stream is cut (as a network would) while the server restarts and the feed moves on.
  await page.route("**/api/v1/odds/stream**", (route) => route.abort("connectionreset"));
  await server.restart();
  await expect(chip).toHaveText("Reconnecting");
  const steps = [
    [2.2, 3.3, 3.1],
    [2.3, 3.2, 3.0],
    [2.5, 3.1, 2.8],
  ];
  for (const prices of steps) await server.ingest([priceChange("e2e-ars-che", prices)]);
  await server.ingest([eventChange("e2e-ars-che", { score: { home: 0, away: 1 }, clock: "61:00" })]);
  await page.unroute("**/api/v1/odds/stream**");

  await expect(chip).toHaveText("Live", { timeout: 30_000 });
  await expect(cells.first()).toHaveAttribute("aria-label", "1: 2.50");
  await expect(cells.nth(2)).toHaveAttribute("aria-label", "2: 2.80");
  await expect(row(page, "e2e-ars-che").getByTestId("score-away")).toHaveText("1");
  // It resumed from its last id: every change replayed, no snapshot needed to cover a gap.
  await expect(page.getByTestId("resync-notice")).toHaveCount(0);
});

test("a stream that goes silent for longer than its ping interval is shown Stale, and Live when it speaks again", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "the clock is the same on a phone");
  await signIn(page, server.url, "/board", server.demo);
  const chip = page.getByTestId("status-chip");
  await expect(chip).toHaveText("Live");
  // A hung server: the connection stays open and nothing arrives, not even a ping.
  server.signal("SIGSTOP");
  try {
    await expect(chip).toHaveText("Stale", { timeout: (PING_SECONDS + 10) * 1_000 });
  } finally {
    server.signal("SIGCONT");
  }
  await expect(chip).toHaveText("Live", { timeout: (PING_SECONDS + 5) * 1_000 });
});

test("a view beyond the member's live-view limit says so, asks again rarely, and goes live by itself once another closes", async ({
  page,
  context,
}, info) => {
  test.skip(info.project.name !== "desktop", "the limit is the server's, the same on a phone");
  test.setTimeout(120_000);
  await signIn(page, server.url, "/board", server.demo);
  const views = [page];
  for (let i = 1; i < LIVE_VIEWS; i++) views.push(await context.newPage());
  for (const view of views.slice(1)) await view.goto(`${server.url}/board`);
  for (const view of views) await expect(view.getByTestId("status-chip")).toHaveText("Live");

  const extra = await context.newPage();
  const refusals: number[] = [];
  extra.on("response", (response) => {
    if (response.url().includes("/api/v1/odds/stream") && response.status() === 429) refusals.push(Date.now());
  });
  await extra.goto(`${server.url}/board`);
  const chip = extra.getByTestId("status-chip");
  await expect(extra.getByTestId("stream-refused")).toContainText("Too many live views open: close one", {
    timeout: 30_000,
  });
  await expect(chip).toHaveText("Waiting");
  // Refused again, it waits longer before its next try.
  await expect.poll(() => refusals.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);

  await views.pop()!.close();
  // Live without waiting for its own next try (by then another 10 s or more): the closing view told it.
  await expect(chip).toHaveText("Live", { timeout: 8_000 });
  await expect(extra.getByTestId("stream-refused")).toHaveCount(0);
  await expect(row(extra, "e2e-ars-che")).toBeVisible();
  await extra.screenshot({ path: `test-results/screenshots/board-live-again-${info.project.name}.png` });
});

test("an event that does not exist is a 404 page at once, and the page never asks the API for it", async ({ page }) => {
  await signIn(page, server.url, "/board", server.demo);
  const asked: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/v1/events/")) asked.push(request.url());
  });
  const response = await page.goto(`${server.url}/board/e2e-no-such-event`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "No such event" })).toBeVisible();
  await expect(page.getByText("Loading the event…")).toHaveCount(0);
  await page.getByRole("link", { name: "← Live board" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Live board" })).toBeVisible();
  expect(asked).toEqual([]);
});

test("an event the member's view cannot show yet says so after one request, not after retries", async ({
  page,
}, info) => {
  test.skip(info.project.name !== "desktop", "the API's answer is the same on a phone");
  // A sandbox organisation's member sees the feed as it was some seconds ago: an event that has just
  // appeared is not there yet, and the API answers 404 for it.
  await page.goto(`${server.url}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(`Sandbox ${randomBytes(3).toString("hex")}`);
  await page.getByLabel("Your name").fill("Sam Sandbox");
  const sam = `sam-${randomBytes(4).toString("hex")}@sandbox.example`;
  await page.getByLabel("E-mail").fill(sam);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, sam);

  const id = "e2e-too-new";
  const reads: number[] = [];
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === `/api/v1/events/${id}`) reads.push(response.status());
  });
  await server.ingest([liveEvent(id, "soccer", "FA Cup", { home: "Hull", away: "Stoke" })]);
  await page.goto(`${server.url}/board/${id}`);
  await expect(page.getByText("This event cannot be shown")).toBeVisible();
  expect(reads).toEqual([404]);
});
