import { expect, test } from "@playwright/test";

test("the home page says what the service is and leads to the console, the board and the reference", async ({
  page,
}, testInfo) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1, name: "Live sports data over one clean API" })).toBeVisible();
  await expect(page.getByRole("list", { name: "Sports covered" }).getByRole("listitem")).toHaveCount(7);
  await page.screenshot({ path: `e2e/screenshots/home-${testInfo.project.name}.png`, fullPage: true });

  // A visitor is asked to sign in for the console and the board (and sent back to the board after).
  const destinations = [
    { link: "Console", heading: "Sign in to the console", url: /\/console\/sign-in$/ },
    { link: "Live odds board", heading: "Sign in to the console", url: /\/console\/sign-in\?next=%2Fboard$/ },
    { link: "API reference", heading: "API reference", url: /\/docs$/ },
  ];
  for (const { link, heading, url } of destinations) {
    await page.goto("/");
    await page
      .getByRole("region", { name: "Where to go" })
      .getByRole("link", { name: new RegExp(`^${link}`) })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await expect(page).toHaveURL(url);
  }
});

test("fits a phone screen without sideways scrolling", async ({ page }) => {
  await page.goto("/");
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});

test("lets keyboard users skip to the content", async ({ page }) => {
  await page.goto("/");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#main$/);
});
