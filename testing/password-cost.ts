// What a test server is started with so that its sign-ups and sign-ins hash passwords at a test's
// cost (docs/configuration.md): the integration backends and the Playwright servers alike.
export const TEST_PASSWORD_COST = { TEST_FAST_PASSWORD_HASH: "1" } as const;
