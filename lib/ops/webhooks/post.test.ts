import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedLookup, post } from "./post.ts";

// A delivery's connection looks the name up itself and refuses private addresses: what the URL's
// check saw a moment before does not matter (DNS rebinding).

type Resolved = { address: string; family: number }[];

const resolver = (answers: Resolved[]) => {
  let n = 0;
  return (_: string, __: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: Resolved) => void) =>
    callback(null, answers[Math.min(n++, answers.length - 1)]!);
};

describe("posting a delivery", () => {
  let server: Server;
  let port = 0;
  const received: { headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("refuses a name that resolves to a loopback address at connection time, and nothing reaches it", async () => {
    // Public when the URL was checked, loopback now: the connection's own lookup decides.
    const rebinding = resolver([[{ address: "127.0.0.1", family: 4 }]]);
    const attempt = post(`http://hooks.example:${port}/in`, { "webhook-id": "msg_1" }, "{}", {
      allowPrivate: false,
      signal: AbortSignal.timeout(5_000),
      resolve: rebinding,
    });
    const refusal = (await attempt.catch((error: unknown) => error)) as NodeJS.ErrnoException;
    expect(refusal.code).toBe("EPRIVATE");
    // The delivery log is the organisation's: it must not learn what the name resolved to.
    expect(refusal.message).not.toMatch(/127\.0\.0\.1/);
    expect(received).toHaveLength(0);
  });

  it("refuses a name with any private address among its answers, IPv6 and mapped IPv4 included", () => {
    for (const addresses of [
      [
        { address: "93.184.216.34", family: 4 },
        { address: "10.1.2.3", family: 4 },
      ],
      [{ address: "::1", family: 6 }],
      [{ address: "::ffff:169.254.169.254", family: 6 }],
      [{ address: "fd00::1", family: 6 }],
    ]) {
      const lookup = guardedLookup(resolver([addresses]));
      let outcome: unknown;
      lookup("hooks.example", { all: true }, ((error: Error | null) => (outcome = error)) as never);
      expect(outcome, JSON.stringify(addresses)).toMatchObject({ code: "EPRIVATE" });
    }
  });

  it("connects to a public name's address, one or all as the socket asks", () => {
    const lookup = guardedLookup(resolver([[{ address: "93.184.216.34", family: 4 }]]));
    const answers: unknown[][] = [];
    lookup("hooks.example", { all: true }, ((...args: unknown[]) => answers.push(args)) as never);
    lookup("hooks.example", {}, ((...args: unknown[]) => answers.push(args)) as never);
    expect(answers).toEqual([
      [null, [{ address: "93.184.216.34", family: 4 }]],
      [null, "93.184.216.34", 4],
    ]);
  });

  it("posts the body with its headers and gives the answer's status when private addresses are allowed", async () => {
    const status = await post(`http://localhost:${port}/in`, { "webhook-id": "msg_2" }, '{"a":1}', {
      allowPrivate: true,
      signal: AbortSignal.timeout(5_000),
    });
    expect(status).toBe(204);
    expect(received).toEqual([
      { headers: expect.objectContaining({ "webhook-id": "msg_2", "content-length": "7" }), body: '{"a":1}' },
    ]);
  });
});
