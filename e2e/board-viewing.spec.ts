import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { signIn, signUpOrganisation, startLiveServer, type LiveServer } from "./support/live-server.ts";
import { zonedClock } from "../components/board/past-moment.ts";
import { eventChange, liveEvent, marketOf, marketsChange, priceChange } from "../testing/feed-updates.ts";
import { chooseDisplay, expectFitsAndAccessible } from "./support/page-checks.ts";

// What a viewer reads on the board and an event's page: the sports where most happens first, in
// the viewer's own order once they chose one; why a sport their organisation does not cover is
// empty; price moves among the changes; settled outcomes told apart by more than colour; the teams
// beside the score; the past called the past; every market's line drawn; the phone's width; and
// times in the viewer's zone, named, with UTC a hover away. A server of the file's own, fed through
// the provider ingest; the browser's zone is Berlin's, so local time is not UTC.

const ZONE = "Europe/Berlin";
const SHOTS = "test-results/screenshots";

test.use({ timezoneId: ZONE });
test.describe.configure({ mode: "serial" });

let server: LiveServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startLiveServer({ SANDBOX_DELAY_SECONDS: "5" });
  // The long games began first and are quiet; soccer and basketball move.
  await server.ingest([
    liveEvent("vw-nfl", "american-football", "NFL", { home: "Green Bay", away: "Chicago" }, [1.8, 2.0], {
      startedMinutesAgo: 90,
    }),
    withoutHandicap(
      liveEvent("vw-ten", "tennis", "ATP Finals", { home: "Sinner", away: "Alcaraz" }, [1.9, 1.9], {
        startedMinutesAgo: 80,
      }),
    ),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await server.ingest([
    liveEvent("vw-ars", "soccer", "Premier League", { home: "Arsenal", away: "Chelsea" }),
    liveEvent("vw-liv", "soccer", "Premier League", { home: "Liverpool", away: "Everton" }),
    liveEvent("vw-bos", "basketball", "NBA", { home: "Boston", away: "Denver" }, [1.7, 2.15]),
  ]);
  await server.ingest([priceChange("vw-ars", [2.2, 3.3, 3.1]), priceChange("vw-bos", [1.65, 2.2])]);
});

test.afterAll(async () => {
  await server?.stop();
});

/** Tennis offers no handicap market. */
function withoutHandicap(update: ReturnType<typeof liveEvent>) {
  return { ...update, markets: update.markets.filter((market) => market.type !== "handicap") };
}

/** The sports' headings, in the board's order (each has the id `sport-<code>`). */
const sections = (page: Page) => page.locator('h2[id^="sport-"]');

async function sportOrder(page: Page): Promise<string[]> {
  return sections(page).evaluateAll((all) => all.map((heading) => heading.id.slice("sport-".length)));
}

test("the board opens on the sports where prices move, keeps the viewer's own order, and pinned events on top", async ({
  page,
}, info) => {
  if (info.project.name === "desktop") await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, server.url, "/board", server.demo);
  await expect(page.getByTestId("status-chip")).toHaveText("Live");
  await expect(sections(page)).toHaveCount(4);
  expect(await sportOrder(page)).toEqual(["soccer", "basketball", "american-football", "tennis"]);
  // On a laptop, the moving sports are on the first screen.
  await expect(page.getByRole("heading", { level: 2, name: "Soccer" })).toBeInViewport();
  if (info.project.name === "desktop") {
    await expect(page.getByRole("heading", { level: 2, name: "Basketball" })).toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/board-first-screen-laptop.png` });
  }

  // The viewer's own order, kept over a reload.
  for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Move Tennis up" }).click();
  expect(await sportOrder(page)).toEqual(["tennis", "soccer", "basketball", "american-football"]);
  await page.reload();
  await expect(sections(page)).toHaveCount(4);
  expect(await sportOrder(page)).toEqual(["tennis", "soccer", "basketball", "american-football"]);

  // A pinned event stays above every sport.
  await page.getByRole("button", { name: "Pin Green Bay v Chicago" }).click();
  const pinned = page.getByRole("region", { name: "Pinned" });
  await expect(pinned.locator('[data-event-id="vw-nfl"]')).toBeVisible();
  const pinnedTop = (await pinned.boundingBox())!.y;
  expect(pinnedTop).toBeLessThan((await sections(page).first().boundingBox())!.y);
  await expectFitsAndAccessible(page, "the board in the viewer's order");

  await page.getByRole("button", { name: "Unpin Green Bay v Chicago" }).click();
  await page.getByRole("button", { name: "Order by activity again" }).click();
  expect(await sportOrder(page)).toEqual(["soccer", "basketball", "american-football", "tennis"]);
});

test("a sport the organisation does not cover says so, and what would show it, instead of nothing in play", async ({
  page,
}) => {
  // A new organisation: no licence, no plan, so its members see the sandbox's view of one sport.
  await signUpOrganisation(page, server.url, {
    organisation: `Viewer ${randomBytes(3).toString("hex")}`,
    email: `vera-${randomBytes(4).toString("hex")}@viewer.example`,
  });
  await page.goto(`${server.url}/board`);

  // The sports it covers come first among the choices; the others say they are not covered.
  const sport = page.getByLabel("Sport");
  const labels = await sport.locator("option").allTextContents();
  expect(labels.slice(0, 2)).toEqual(["All sports", "Soccer"]);
  expect(labels).toContain("Basketball (not covered)");

  await sport.selectOption("basketball");
  const notCovered = page.getByTestId("board-not-covered");
  await expect(notCovered).toContainText("Basketball is not covered by your organisation");
  await expect(notCovered).toContainText("the sandbox's view of one sport: Soccer");
  await expect(notCovered).toContainText("A plan that includes Basketball would show its events here");
  await expect(notCovered.getByRole("link", { name: "plan" })).toHaveAttribute("href", "/console/plan");
  await expect(page.getByTestId("board-empty")).toHaveCount(0);
  await expectFitsAndAccessible(page, "a sport not covered");
});

test("the event page: teams beside the score, price moves among the changes, settled outcomes distinct, every line drawn", async ({
  page,
}, info) => {
  const id = `vw-${info.project.name}-event`;
  // Next goal: open at 1.78 for the home side; settled with the prices of its last quote, never offered.
  const goal = (results?: string[]) =>
    marketOf(
      id,
      "next_goal",
      "next_goal",
      "Next goal",
      [
        { name: "Wolverhampton Wanderers", price: results ? 1.91 : 1.78, status: results?.[0] },
        { name: "No goal", price: 9, status: results?.[1] },
        { name: "Brighton and Hove Albion", price: results ? 2.0 : 2.1, status: results?.[2] },
      ],
      results ? "settled" : "open",
    );
  const event = liveEvent(id, "soccer", "Premier League", {
    home: "Wolverhampton Wanderers",
    away: "Brighton and Hove Albion",
  });
  await server.ingest([{ ...event, markets: [...event.markets, goal()] }]);
  await signIn(page, server.url, `/board/${id}`, server.demo);
  await expect(page.getByTestId("status-chip")).toHaveText("Live");

  // The score names its teams, visibly.
  await expect(page.getByTestId("score-home-name")).toHaveText("Wolverhampton Wanderers");
  await expect(page.getByTestId("score-home-name")).toBeVisible();
  await expect(page.getByTestId("score-away-name")).toHaveText("Brighton and Hove Albion");
  await expect(page.getByTestId("score-away-name")).toBeVisible();

  // A price move is told among the changes, with its direction.
  await server.ingest([priceChange(id, [2.4, 3.4, 2.9])]);
  const changes = page.getByTestId("timeline");
  await expect(changes).toContainText("Match winner: Home 2.10 → 2.40 ▲ (up)");
  await expect(changes).toContainText("Away 3.20 → 2.90 ▼ (down)");
  await server.ingest([eventChange(id, { score: { home: 1, away: 0 }, clock: "52:10" })]);
  await expect(changes).toContainText("Wolverhampton Wanderers score: 1–0");
  // Its time is the viewer's, the zone named once, UTC on hover.
  await expect(page.getByText(/^Times in CET\.$/)).toBeVisible();
  await expect(changes.locator("time").first()).toHaveAttribute("title", / UTC$/);

  // Next goal settles: each outcome's line is drawn up to the settlement, and the legend gives the
  // prices that were offered, as the lines show them.
  await server.ingest([marketsChange(id, [goal(["won", "lost", "void"])])]);
  const goalChart = page.getByRole("figure", { name: "Next goal" });
  await expect(goalChart.getByRole("listitem").filter({ hasText: "Wolverhampton Wanderers" })).toHaveText(
    /Wolverhampton Wanderers\s*1\.78$/,
  );
  await expect
    .poll(() =>
      goalChart
        .locator("path.recharts-line-curve")
        .evaluateAll((paths) => paths.filter((path) => /L/.test(path.getAttribute("d") ?? "")).length),
    )
    .toBe(3);

  // Won, lost and void read apart by their words, icons and cells, not by colour alone.
  const cells = page.getByTestId("event-market").filter({ hasText: "Next goal" }).getByTestId("price");
  const won = cells.nth(0);
  const lost = cells.nth(1);
  const voided = cells.nth(2);
  await expect(won).toHaveAttribute("aria-label", "Wolverhampton Wanderers: won");
  await expect(won).toContainText("Won");
  await expect(lost).toContainText("Lost");
  await expect(voided).toContainText("Void");
  const look = (cell: typeof won) =>
    cell.evaluate((element) => {
      const style = getComputedStyle(element);
      return [style.borderStyle, style.borderWidth, style.backgroundColor, style.fontWeight].join(" ");
    });
  const looks = new Set([await look(won), await look(lost), await look(voided)]);
  expect(looks.size).toBe(3);
  for (const cell of [won, lost, voided]) await expect(cell.locator("svg")).toHaveCount(1);
  // On a phone the chip sits where the title begins, not indented on a line of its own; and (below)
  // nothing is wider than the screen.
  if (info.project.name === "phone") {
    const chip = (await page.getByTestId("status-chip").boundingBox())!;
    const title = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
    expect(Math.abs(chip.x - title.x)).toBeLessThan(2);
    await page.screenshot({ path: `${SHOTS}/event-page-phone.png`, fullPage: true });
  }
  await expectFitsAndAccessible(page, "the event page with a settled market");
});

test("while the page shows the past, the chip says Past; times follow the viewer's choice of UTC", async ({
  page,
}, info) => {
  const id = `vw-${info.project.name}-past`;
  await server.ingest([liveEvent(id, "soccer", "FA Cup", { home: "Derby", away: "Stoke" })]);
  await server.ingest([priceChange(id, [2.3, 3.3, 3.0])]);
  await signIn(page, server.url, `/board/${id}`, server.demo);
  const chip = page.getByTestId("status-chip");
  await expect(chip).toHaveText("Live");
  const slider = page.getByRole("slider", { name: /Moment shown/ });
  await expect(slider).toBeEnabled();
  await expect
    .poll(async () => Number(await slider.getAttribute("max")) - Number(await slider.getAttribute("min")))
    .toBeGreaterThan(3);
  await slider.focus();
  await slider.press("Home");
  const min = Number(await slider.getAttribute("min"));
  await expect(page.getByTestId("moment-chosen")).toHaveText(`as of ${zonedClock(min, ZONE)}`);
  await expect(chip).toHaveText(`Past: ${zonedClock(min, ZONE)}`);
  await expect(chip).toHaveAttribute("data-state", "past");
  await expectFitsAndAccessible(page, "the event page in the past");

  // UTC chosen in the display settings: the same moment, in UTC.
  await chooseDisplay(page, "Times", "utc");
  await expect(page.getByTestId("moment-chosen")).toHaveText(`as of ${zonedClock(min, "UTC")}`);
  await slider.press("End");
  await expect(chip).toHaveText("Live");
  await chooseDisplay(page, "Times", "local");
});
