import { afterAll, beforeAll } from "vitest";
import { signUp } from "../lib/console/members.ts";
import { openDatabase, type Database, type DatabaseHandle } from "../lib/db/index.ts";
import { seedReferenceData } from "../seeds/index.ts";
import { demoSignIn, type SignInCredentials } from "./console.ts";
import { useTestDatabase, type Backend } from "./databases.ts";
import { startServer, type RunningServer } from "./processes.ts";

// The set-ups suites share, each called inside a describeEachBackend: the hooks they register open
// what the suite uses before its tests and close it after, and `opened` hands it to the suite.

/**
 * The file's test database opened in this process and seeded, for a suite of domain calls.
 * `organisation(label)` signs up a new organisation whose admin has `password`; `serial()` numbers
 * anything else the suite needs unique (an e-mail address).
 */
export function useSeededDatabase(backend: Backend, password: string, opened: (db: Database) => void) {
  const database = useTestDatabase(backend);
  let handle: DatabaseHandle | undefined;
  let counter = 0;

  beforeAll(async () => {
    handle = await openDatabase(database().config);
    await seedReferenceData(handle.db);
    opened(handle.db);
  });
  afterAll(() => handle?.close());

  const serial = () => ++counter;
  async function organisation(label: string) {
    const email = `${label}-${serial()}@example.test`;
    const { organisation, user } = await signUp(handle!.db, {
      organisation: `${label} ${counter}`,
      name: "Admin",
      email,
      password,
    });
    return { orgId: organisation.id, userId: user.id, email };
  }
  return { organisation, serial };
}

/** The server on the file's test database with the demo seeded and `env` added, and the demo sign-in its first start showed. */
export function useConsoleServer(
  backend: Backend,
  env: Record<string, string>,
  opened: (started: { server: RunningServer; demo: SignInCredentials }) => void,
): void {
  const database = useTestDatabase(backend);
  const running: { server?: RunningServer } = {};

  beforeAll(async () => {
    const server = await startServer({ ...database().env, SEED_DEMO: "1", ...env });
    running.server = server;
    opened({ server, demo: demoSignIn(server.output()) });
  });
  afterAll(() => running.server?.stop());
}
