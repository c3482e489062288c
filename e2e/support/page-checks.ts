import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** The page fits its screen, the phone's too, without sideways scrolling. */
export async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** It fits its screen and passes axe's WCAG 2.1 A and AA checks (labels, contrast, names, landmarks). */
export async function expectFitsAndAccessible(page: Page, name: string): Promise<void> {
  // Next streams a page's metadata after its content: after a server action re-renders the page,
  // its <title> can be missing for a moment, and axe run then found none (document-title).
  await expect(page, `${name}: a title`).toHaveTitle(/\S/);
  await expectNoSidewaysScroll(page, name);
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    `${name}: axe`,
  ).toEqual([]);
}

/** A console page fits and passes axe; its screenshot is kept under e2e/screenshots. */
export async function checkConsolePage(page: Page, name: string, project: string): Promise<void> {
  await expectFitsAndAccessible(page, name);
  await page.screenshot({ path: `e2e/screenshots/console-${name}-${project}.png`, fullPage: true });
}

/** Chooses a display setting in the header; on a phone it is behind the "Display" button. */
export async function chooseDisplay(page: Page, setting: "Theme" | "Times", value: string): Promise<void> {
  const button = page.getByRole("button", { name: "Display" });
  if ((await button.isVisible()) && (await button.getAttribute("aria-expanded")) !== "true") await button.click();
  await page.getByLabel(setting).selectOption(value);
  if (await button.isVisible()) await button.click();
}
