import { expect, it } from "vitest";
import { openDatabase } from "../../lib/db/index.ts";
import { readiness } from "../../lib/health.ts";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";

describeEachBackend("readiness on $name", (backend) => {
  const database = useTestDatabase(backend);

  it("checks the database once for every caller of the same second, and says nothing of its errors", async () => {
    const handle = await openDatabase(database().config);
    try {
      const before = handle.pool.queries.other;
      const reports = await Promise.all(Array.from({ length: 50 }, () => readiness(handle)));
      reports.push(await readiness(handle));
      expect(reports.every((r) => r.status === 200)).toBe(true);
      expect(handle.pool.queries.other - before).toBe(1);
    } finally {
      await handle.close();
    }
    // A closed database fails with an error of its own; the report gives a fixed sentence instead.
    const failed = await readiness({ ...handle });
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({
      status: "database_unreachable",
      database: backend.name,
      detail: "The database did not answer.",
    });
  });
});
