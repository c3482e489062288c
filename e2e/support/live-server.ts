import { rmSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { demoSignIn, operatorSignIn } from "../../testing/console.ts";
import { migratedDataDir } from "../../testing/data-dirs.ts";
import { FEED_TOKEN, ingest } from "../../testing/feed.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { freePort } from "../../testing/ports.ts";
import { TEST_PASSWORD_COST } from "../../testing/password-cost.ts";
import { admin, startServer, type RunningServer } from "../../testing/processes.ts";
import { followSignUpMail, mailEnv } from "./mailbox.ts";

// A server of the board suite's own (the built app on PGlite, simulator off), fed through the
// provider ingest, on a fixed port so that it can be stopped and started again under the pages
// that follow it.

// A busy machine (the suite's own browser beside it) can take more than a minute to start it.
const READY_WITHIN_MS = 120_000;

type KeyHolder = Awaited<ReturnType<typeof organisationWithKeys>>;

export type LiveServer = {
  url: string;
  /** An organisation with a production and a sandbox key, when one was asked for. */
  keyHolder: KeyHolder | null;
  demo: { email: string; password: string };
  /** The first operator's sign-in, shown once (in a file: the server has no terminal) beside the demo's. */
  operatorAccount: { email: string; password: string };
  ingest(updates: unknown[]): Promise<void>;
  /** Stops the server and starts it again on the same data, with `env` beside its settings. */
  restart(env?: Record<string, string>): Promise<void>;
  /**
   * Runs the operator CLI (`npm run admin -- …`) and returns its --json document: the CLI sends it
   * to the running server, which holds the embedded database.
   */
  operator<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** SIGSTOP and SIGCONT: a server that hangs, and comes back. */
  signal(signal: "SIGSTOP" | "SIGCONT"): void;
  stop(): Promise<void>;
};

/**
 * A server of the spec file's own, started before its first test and stopped after its last; the
 * returned function gives it to the tests.
 */
export function liveServerForFile(options: { hostName?: string } = {}): () => LiveServer {
  let server: LiveServer | undefined;
  test.beforeAll(async () => {
    // A server of its own starts slowly on a busy machine.
    test.setTimeout(120_000);
    server = await startLiveServer({}, options);
  });
  test.afterAll(async () => {
    await server?.stop();
  });
  return () => server!;
}

export async function startLiveServer(
  env: Record<string, string> = {},
  options: {
    keyHolder?: { plan: string; sandboxSport: string };
    /** Runs on the database before the server starts (PGlite admits one process at a time). */
    prepare?: (env: Record<string, string>) => Promise<void>;
    /** The port, when something set up before the server must know its address. */
    port?: number;
    /**
     * The name the browser and the service's address use for it (NEXTAUTH_URL): `localhost` where
     * passkeys are made, since a relying party cannot be an IP address.
     */
    hostName?: string;
  } = {},
): Promise<LiveServer> {
  const port = options.port ?? (await freePort());
  const dataDir = migratedDataDir();
  await options.prepare?.({ DATA_DIR: dataDir });
  // Made before the server starts: PGlite admits one process at a time.
  const keyHolder = options.keyHolder
    ? await organisationWithKeys({ DATA_DIR: dataDir }, "e2e-key-holder", options.keyHolder)
    : null;
  const settings = {
    // As the suite's own server (playwright.config.ts); a spec's settings may say otherwise.
    ...TEST_PASSWORD_COST,
    ...env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    FEED_TOKEN,
    SIM: "off",
    ...mailEnv(`http://${options.hostName ?? "127.0.0.1"}:${port}`),
  };
  let server: RunningServer = await startServer(settings, { address: "from-config", readyWithinMs: READY_WITHIN_MS });
  const url = `http://${options.hostName ?? "127.0.0.1"}:${port}`;
  const firstOutput = server.output();
  return {
    url,
    keyHolder,
    // Seeded only on an empty database: a key holder's organisation comes first, and there is none.
    get demo() {
      return demoSignIn(firstOutput);
    },
    get operatorAccount() {
      return operatorSignIn(firstOutput);
    },
    async ingest(updates) {
      await ingest(url, updates);
    },
    async restart(extra = {}) {
      await server.stop("SIGTERM");
      server = await startServer({ ...settings, ...extra }, { address: "from-config", readyWithinMs: READY_WITHIN_MS });
    },
    operator<T>(args: string[]) {
      return admin<T>(args, { DATA_DIR: dataDir });
    },
    signal(signal) {
      server.process.kill(signal);
    },
    async stop() {
      await server.stop("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function signIn(page: Page, baseUrl: string, next: string, account: { email: string; password: string }) {
  await page.goto(`${baseUrl}${next}`);
  await expect(page).toHaveURL(/\/console\/sign-in\?next=/);
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${baseUrl}${next}`);
}

/** Signs up a new organisation (no licence, no plan: its members see the sandbox's view) and waits for the console. */
export async function signUpOrganisation(
  page: Page,
  baseUrl: string,
  account: { organisation: string; email: string; name?: string; password?: string },
): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-up`);
  await page.getByLabel("Organisation name").fill(account.organisation);
  await page.getByLabel("Your name").fill(account.name ?? "Ada Admin");
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Password").fill(account.password ?? "correct horse battery staple");
  await page.getByRole("button", { name: "Create organisation" }).click();
  await followSignUpMail(page, account.email);
}
