import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATOR } from "../../lib/accounts/audit.ts";
import { openDatabase } from "../../lib/db/index.ts";
import { GUESSES_PER_WINDOW } from "../../lib/api/credentials/guesses.ts";
import { MEMBER_LIMITS } from "../../lib/api/credentials/members.ts";
import { createSandboxKey } from "../../lib/keys/index.ts";
import { generateKey } from "../../lib/keys/format.ts";
import { createOrganisation } from "../../lib/accounts/organisations.ts";
import { addMember } from "../../lib/accounts/users.ts";
import { seedReferenceData } from "../../seeds/index.ts";
import { expectDocumented } from "../../testing/api.ts";
import { signIn } from "../../testing/console.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { recordSecret } from "../../testing/logs.ts";
import { requestQueries } from "../../testing/metrics.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";

// Who may read the API, and at what cost to the service: console members reading with their
// session cookie, invented keys, a key pasted into a path, and the console's audit page.

const AUTH_SECRET = "an-integration-test-secret-of-enough-length";
const METRICS_TOKEN = "metrics-token-for-the-access-tests";
const PASSWORD = "a member password of some length";

type Problem = { code: string; "violated-policies"?: string[] };
type Odds = { data: { sport: string }[]; meta: { sandbox: boolean; requests_quota: number; requests_used: number } };

describeEachBackend("access to the API on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let productionKey: string;
  const licensed = { email: "member@licensed.test", session: "" };
  const unlicensed = { email: "member@unlicensed.test", session: "" };

  beforeAll(async () => {
    const env = database().env;
    const org = await organisationWithKeys(env, "licensed", { plan: "starter", sandboxSport: "soccer" });
    // A key of its own organisation: the plan's limits are the organisation's, which its member's reads share.
    productionKey = (await organisationWithKeys(env, "keyholder", { plan: "starter", sandboxSport: "soccer" }))
      .production.key;
    recordSecret(productionKey);
    const handle = await openDatabase(database().config);
    try {
      const { db } = handle;
      await seedReferenceData(db);
      await addMember(
        db,
        { orgId: org.orgId, email: licensed.email, name: "Licensed", password: PASSWORD, role: "viewer" },
        OPERATOR,
      );
      // No licence, no plan: only its sandbox key, made for tennis.
      const other = await createOrganisation(db, { name: "Org unlicensed", slug: "unlicensed" }, OPERATOR);
      await createSandboxKey(db, other.id, { sport: "tennis" }, { actor: OPERATOR, at: new Date(), ttlDays: 30 });
      await addMember(
        db,
        { orgId: other.id, email: unlicensed.email, name: "Unlicensed", password: PASSWORD, role: "admin" },
        OPERATOR,
      );
    } finally {
      await handle.close();
    }
    server = await startServer({ ...env, AUTH_SECRET, METRICS_TOKEN });
    for (const member of [licensed, unlicensed]) {
      const { session } = await signIn(server.url, member.email, PASSWORD);
      expect(session).not.toBeNull();
      member.session = session!;
    }
  });
  afterAll(() => server?.stop());

  // A script, as the finding has it: the cookie, and neither Sec-Fetch-Site nor Origin.
  const withCookie = (session: string, path: string) => fetch(`${server.url}${path}`, { headers: { cookie: session } });

  it("shows a member of an organisation without a licence the sandbox view of one sport only", async () => {
    const odds = await withCookie(unlicensed.session, "/api/v1/odds");
    expect(odds.status).toBe(200);
    const body = (await odds.json()) as Odds;
    expect(body.meta.sandbox).toBe(true);
    expect(body.data.every((event) => event.sport === "tennis")).toBe(true);
    const other = await withCookie(unlicensed.session, "/api/v1/odds?sport=soccer");
    expect(other.status).toBe(403);
    expect(((await other.json()) as Problem).code).toBe("sport_not_covered");
  });

  it("shows a member of a licensed organisation its plan's sports in real time, and no others", async () => {
    const soccer = await withCookie(licensed.session, "/api/v1/odds?sport=soccer");
    expect(soccer.status).toBe(200);
    expect(((await soccer.json()) as Odds).meta.sandbox).toBe(false);
    const hockey = await withCookie(licensed.session, "/api/v1/odds?sport=ice-hockey");
    expect(hockey.status).toBe(403);
    expect(((await hockey.json()) as Problem).code).toBe("sport_not_covered");
  });

  it("holds a member's scripted loop with the cookie to the member's per-second limit", async () => {
    const statuses: number[] = [];
    let refused: Response | undefined;
    // The limit in the second the loop starts in, and perhaps the next: 429 well within three times it.
    for (let i = 0; i < 3 * MEMBER_LIMITS.requestsPerSecond && !refused; i++) {
      const response = await withCookie(licensed.session, "/api/v1/odds");
      statuses.push(response.status);
      if (response.status === 429) refused = response;
      else {
        expect(response.status).toBe(200);
        const body = (await response.json()) as Odds;
        expect(body.meta.requests_quota).toBe(MEMBER_LIMITS.monthlyQuota);
        expect(response.headers.get("ratelimit-policy")).toContain(`"second";q=${MEMBER_LIMITS.requestsPerSecond};w=1`);
      }
    }
    expect(refused, `statuses: ${statuses.join(" ")}`).toBeDefined();
    const problem = (await refused!.json()) as Problem;
    expect(problem).toMatchObject({ code: "rate_limited", "violated-policies": ["second"] });
    expect(refused!.headers.get("retry-after")).toBe("1");
    expectDocumented("/api/v1/odds", refused!, problem);
  });

  it("answers invented keys without the database, any number of them, and keys in use keep working", async () => {
    const send = (key: string) => fetch(`${server.url}/api/v1/events`, { headers: { "x-api-key": key } });
    const me = () => fetch(`${server.url}/api/v1/me`, { headers: { "x-api-key": productionKey } });
    expect((await me()).status).toBe(200);
    const before = await requestQueries(server.url, METRICS_TOKEN);
    // More than an address's budget of reads ever was: each one refused from the index of keys.
    for (let i = 0; i <= GUESSES_PER_WINDOW + 50; i++) {
      const response = await send(generateKey(i % 2 ? "production" : "sandbox"));
      expect(response.status).toBe(401);
      expect(((await response.json()) as Problem).code).toBe("invalid_api_key");
    }
    // None for the guesses: the few the instance's own jobs (the mail and webhook outboxes, the status
    // recorder) may run meanwhile are far from one per guess.
    expect((await requestQueries(server.url, METRICS_TOKEN)) - before).toBeLessThan(10);
    expect((await me()).status).toBe(200);
  });

  it("keeps a key pasted into a path out of the access log", async () => {
    for (const path of [`/api/v1/${productionKey}`, `/api/v1/events/${productionKey}/lineups`]) {
      const response = await fetch(`${server.url}${path}`, { headers: { "x-api-key": productionKey } });
      expect(response.status).toBe(404);
    }
    // The access line is written once the answer is: wait until both are in the output.
    await expect
      .poll(() => server.output().match(/"route":"(unknown|getLineups)"/g)?.length ?? 0)
      .toBeGreaterThanOrEqual(2);
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'));
    expect(lines.filter((line) => line.includes(productionKey.slice(7)))).toEqual([]);
    expect(lines.some((line) => line.includes("svc_sk_[hidden]"))).toBe(true);
  });

  it("answers an audit page that cannot exist with 404, not a failure", async () => {
    for (const before of ["Infinity", "1e30", "-1", "1.5", "abc"]) {
      const response = await fetch(`${server.url}/console/audit?before=${before}`, {
        headers: { cookie: unlicensed.session },
      });
      expect(response.status, before).toBe(404);
    }
    const page = await fetch(`${server.url}/console/audit?before=9007199254740991`, {
      headers: { cookie: unlicensed.session },
    });
    expect(page.status).toBe(200);
  });
});
