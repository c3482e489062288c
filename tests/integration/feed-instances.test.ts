import { describe, expect, it } from "vitest";
import { POSTGRES, useTestDatabase } from "../../testing/databases.ts";
import { startServer } from "../../testing/processes.ts";

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const LEADS = "Feed: this instance leads";

describe.runIf(POSTGRES)("two server processes on one PostgreSQL database", () => {
  const database = useTestDatabase(POSTGRES!);

  it("run one simulator between them, and the survivor takes it over when the leader is killed", async () => {
    const env = { ...database().env, SIM: "on", SIM_SPEED: "60" };
    const first = await startServer(env);
    const second = await startServer(env);
    try {
      await until(() => first.output().includes(LEADS) || second.output().includes(LEADS), 10_000);
      // Give the follower a few of its attempts: it must not lead as well.
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      const leaders = [first, second].filter((server) => server.output().includes(LEADS));
      expect(leaders).toHaveLength(1);
      const [leader] = leaders;
      const follower = leader === first ? second : first;

      await leader!.stop("SIGKILL");
      // The follower tries every 2 seconds; the killed leader's session, and its lock, are gone.
      await until(() => follower.output().includes(LEADS), 10_000);
      await until(() => /Simulator: \d+ events followed, \d+ updates applied/.test(follower.output()), 20_000);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});
