import { expect, test, type Page, type Response } from "@playwright/test";
import { signIn, startLiveServer, type LiveServer } from "./support/live-server.ts";
import { eventChange, liveEvent, priceChange } from "../testing/feed-updates.ts";

// The pages keep their Content-Security-Policy in a real browser: each document's policy has a
// nonce of its own, the pages work under it (the reference's Vue app, the board's streams), and
// the browser reports no violation and no unknown Permissions-Policy feature.

type Watch = { violations: string[] };

/** Collects what the browser reports against the policies, across navigations. */
async function watchPolicies(page: Page): Promise<Watch> {
  const watch: Watch = { violations: [] };
  await page.exposeFunction("reportPolicyViolation", (text: string) => watch.violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener(
      "securitypolicyviolation",
      (event) => {
        const report = (window as unknown as { reportPolicyViolation(text: string): void }).reportPolicyViolation;
        report(
          `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`,
        );
      },
      true,
    );
  });
  page.on("console", (message) => {
    const text = message.text();
    if (/Content Security Policy|Permissions-Policy|Permissions policy/i.test(text)) watch.violations.push(text);
  });
  return watch;
}

/** The nonce of a document's policy; the policy allows no inline or eval'd script. */
function nonceOf(response: Response | null): string {
  expect(response, "a document was loaded").not.toBeNull();
  const policy = response!.headers()["content-security-policy"] ?? "";
  const scripts = /(?:^|;)\s*script-src ([^;]*)/.exec(policy)?.[1] ?? "";
  const nonce = /'nonce-([A-Za-z0-9+/]+={0,2})'/.exec(scripts)?.[1];
  expect(nonce, `a nonce in ${policy}`).toBeDefined();
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(response!.headers()["x-content-type-options"]).toBe("nosniff");
  return nonce!;
}

/** Every script element of the document's HTML carries this response's nonce. */
async function expectScriptsCarry(response: Response | null, nonce: string): Promise<void> {
  const html = await response!.text();
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
  expect(scripts.length).toBeGreaterThan(0);
  for (const script of scripts) expect(script).toContain(` nonce="${nonce}"`);
}

test("the home page, the sign-in and the reference work under their policy", async ({ page }) => {
  const watch = await watchPolicies(page);

  const home = await page.goto("/");
  const homeNonce = nonceOf(home);
  await expect(page.getByRole("heading", { level: 1, name: "Live sports data over one clean API" })).toBeVisible();
  await expectScriptsCarry(home, homeNonce);
  // Hydrated: a client-side navigation works.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);

  const signInPage = await page.goto("/console/sign-in");
  const signInNonce = nonceOf(signInPage);
  expect(signInNonce).not.toBe(homeNonce);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the console" })).toBeVisible();
  await expectScriptsCarry(signInPage, signInNonce);
  // The form is React's: a wrong password is refused in place, without a reload.
  await page.getByLabel("E-mail").fill("nobody@example.com");
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong e-mail or password.")).toBeVisible();

  const docs = await page.goto("/docs");
  nonceOf(docs);
  // Scalar's first render: the bound docs.spec.ts gives the same page on a busy machine.
  await expect(page.getByRole("heading", { level: 1, name: "Sports Event Data API" })).toBeVisible({ timeout: 30_000 });
  const target = page.getByText("List events").first();
  for (let i = 0; i < 40 && !(await target.count()); i++) {
    await page.mouse.wheel(0, 1_500);
    await page.waitForTimeout(150);
  }
  await expect(target).toBeAttached();

  expect(watch.violations).toEqual([]);
});

test("a page refuses injected scripts, inline handlers and eval: the policy is enforced, not only sent", async ({
  page,
}) => {
  const watch = await watchPolicies(page);
  // The home page as an injection would leave it: markup without the nonce in the server's HTML.
  await page.route(
    (url) => url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      const injected = '<script>window.inlineRan = true</script><img src="/x.png" onerror="window.handlerRan = true">';
      await route.fulfill({ response, body: (await response.text()).replace("</body>", `${injected}</body>`) });
    },
  );
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const outcome = await page.evaluate(async () => {
    const flags = window as unknown as { inlineRan?: boolean; handlerRan?: boolean; evalOutcome?: string };
    // A script the page's own scripts load runs ('strict-dynamic', as Next's chunks do); even it may not eval.
    const loaded = document.createElement("script");
    loaded.src =
      "data:text/javascript,window.evalOutcome = (() => { try { return String(eval('6 * 7')) } catch (e) { return e.name } })()";
    await new Promise((resolve) => {
      loaded.onload = resolve;
      loaded.onerror = resolve;
      document.body.append(loaded);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { inline: flags.inlineRan === true, handler: flags.handlerRan === true, eval: flags.evalOutcome };
  });
  expect(outcome).toEqual({ inline: false, handler: false, eval: "EvalError" });
  await expect.poll(() => watch.violations.filter((v) => /script-src/.test(v)).length).toBeGreaterThanOrEqual(3);
  // The page's own scripts still ran: it is hydrated, and navigates on the client.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test.describe("the board", () => {
  let server: LiveServer;

  test.beforeAll(async () => {
    server = await startLiveServer();
    await server.ingest([liveEvent("sec-lee-tot", "soccer", "Premier League", { home: "Leeds", away: "Spurs" })]);
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test("follows its streams under its policy", async ({ page }) => {
    const watch = await watchPolicies(page);
    await signIn(page, server.url, "/board", server.demo);
    const board = await page.goto(`${server.url}/board`);
    await expectScriptsCarry(board, nonceOf(board));
    await expect(page.getByTestId("status-chip")).toHaveText("Live");
    const row = page.locator('[data-testid="board-row"][data-event-id="sec-lee-tot"]');
    await expect(row).toContainText("Leeds");
    await server.ingest([priceChange("sec-lee-tot", [1.5, 3.9, 5.5])]);
    const home = row.locator('[data-market-type="match_winner"] [data-testid="price"]').first();
    await expect(home).toHaveAttribute("aria-label", "1: 1.50");

    const event = await page.goto(`${server.url}/board/sec-lee-tot`);
    await expectScriptsCarry(event, nonceOf(event));
    await expect(page.getByTestId("status-chip")).toHaveText("Live");
    await server.ingest([eventChange("sec-lee-tot", { score: { home: 1, away: 0 } })]);
    await expect(page.getByTestId("event-score")).toContainText("1 – 0");

    expect(watch.violations).toEqual([]);
  });
});
