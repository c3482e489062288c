import { DrizzleQueryError } from "drizzle-orm/errors";
import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { createLogger } from "./index.ts";
import { loggedError } from "./safe-error.ts";

describe("an error as the log writes it", () => {
  it("keeps a failed query's statement but none of its parameters", () => {
    const cause = Object.assign(new Error("duplicate key value violates unique constraint"), {
      code: "23505",
      parameters: ["svc_sk_secret"],
    });
    const error = new DrizzleQueryError(
      'select "id" from "users" where "password_hash" = $1',
      ["scrypt$131072$8$1$salt$hash-of-a-password"],
      cause,
    );
    const logged = JSON.stringify(loggedError(error));
    expect(logged).toContain('where \\"password_hash\\" = $1');
    expect(logged).toContain("23505");
    expect(logged).not.toContain("hash-of-a-password");
    expect(logged).not.toContain("svc_sk_secret");
  });

  it("writes what is not an error as text", () => {
    expect(loggedError("plain")).toBe("plain");
  });

  it("is how the service's logger writes every error", () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const log = createLogger({ LOG_FORMAT: "json", LOG_LEVEL: "info" }, new AsyncLocalStorage(), destination);
    log.error({ err: new DrizzleQueryError("select 1 where $1", ["a-token-hash"], new Error("x")) }, "failed");
    expect(lines[0]).toContain("select 1 where $1");
    expect(lines[0]).not.toContain("a-token-hash");
  });
});
