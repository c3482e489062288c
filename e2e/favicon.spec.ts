import { expect, test } from "@playwright/test";

// The site's icon: a browser asks for it on a first visit (a headless one does not), and a missing
// one logs an error; so the test asks for it as a browser would.

test("the site has an icon, at /favicon.ico and linked from every page, and a first page load logs no error", async ({
  page,
}) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  const linked = await page
    .locator('link[rel~="icon"]')
    .evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  expect(linked.length).toBeGreaterThan(0);
  for (const href of [...linked, "/favicon.ico"]) {
    const response = await page.request.get(href);
    expect(response.status(), href).toBe(200);
    expect(response.headers()["content-type"], href).toMatch(/^image\//);
  }
  expect(errors).toEqual([]);
});
