// What bench/api.ts and bench/api-profile.ts share: a scratch DATA_DIR holding one organisation
// with a licence and a production key on a plan no load reaches, the provider ingest that fills
// our server with bench/data.ts's events, and the baseline (bench/static-server.ts) serving a
// recorded copy of one of our answers.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { loadConfig } from "../lib/config.ts";
import { openDatabase } from "../lib/db/index.ts";
import { organisations, plans } from "../lib/db/schema/index.ts";
import type { FeedUpdate } from "../lib/feed/schemas.ts";
import { admin, type RunningServer } from "../tests/integration/support/processes.ts";
import { BENCH_PLAN } from "./data.ts";

export const FEED_TOKEN = randomBytes(24).toString("base64url");

// ---------------------------------------------------------------------------------------------
// Set-up: an organisation with a licence and a production key, on a plan the load cannot exhaust.

export async function createKey(env: Record<string, string>): Promise<string> {
  await admin(["org", "create", "--name", "Bench", "--slug", "bench"], env);
  await admin(
    [
      "licence",
      "set",
      "--org",
      "bench",
      "--reference",
      "L-1",
      "--authority",
      "X",
      "--holder",
      "Bench Ltd",
      "--valid-until",
      "2030-12-31",
    ],
    env,
  );
  await admin(["licence", "verify", "--org", "bench"], env);
  await admin(["plan", "set", "--org", "bench", "--plan", "pro"], env);
  const created = await admin<{ key: string }>(["key", "create", "--org", "bench", "--env", "production"], env);
  return created.key;
}

// Every plan on offer refuses this load: pro above 50 requests per second and a million a month,
// enterprise above 200 a second, while one run sends hundreds of thousands of requests at thousands
// a second. Plans cannot be edited for the benchmark: the seed rewrites the plans table from
// seeds/plans.ts on every start, and nothing in lib/ creates one. So the benchmark writes a plan of
// its own into its scratch database (the seed upserts the plans it knows and deletes none, so the
// row survives the server's start) and moves the organisation onto it. Written straight into the
// table before the server starts, and closed again, because PGlite admits one process at a time.
export async function giveHeadroom(dataDir: string): Promise<void> {
  const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
  const { db } = database;
  try {
    await db.transaction(async (tx) => {
      await tx.insert(plans).values(BENCH_PLAN);
      await tx.update(organisations).set({ planCode: "bench" }).where(eq(organisations.slug, "bench"));
    });
  } finally {
    await database.close();
  }
}

export async function ingest(server: RunningServer, updates: FeedUpdate[]): Promise<void> {
  const response = await fetch(`${server.url}/api/feed/v1/updates`, {
    method: "POST",
    headers: { authorization: `Bearer ${FEED_TOKEN}`, "content-type": "application/x-ndjson" },
    body: updates.map((update) => JSON.stringify(update)).join("\n"),
    signal: AbortSignal.timeout(60_000),
  });
  const answer = (await response.json()) as { data?: { applied: number; results: { status: string }[] } };
  if (response.status !== 200 || answer.data?.applied !== updates.length) {
    const refused = answer.data?.results.find((result) => result.status !== "applied") ?? answer;
    throw new Error(`the ingest answered ${response.status}: ${JSON.stringify(refused).slice(0, 1_000)}`);
  }
}

export type Recorded = { status: number; headers: Record<string, string>; body: string };

// Written by node:http itself on every answer, the baseline's as well as ours.
const PER_CONNECTION_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

/**
 * One whole answer of our server, byte for byte as it came off the socket. node:http rather than
 * fetch, because fetch decodes a gzip body and the baseline must send the encoded bytes.
 */
export function capture(url: string, headers: Record<string, string>): Promise<{ recorded: Recorded; items: number }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        try {
          const body = Buffer.concat(chunks);
          if (response.statusCode !== 200)
            throw new Error(`${url} answered ${response.statusCode}: ${body.toString().slice(0, 500)}`);
          const kept: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined && !PER_CONNECTION_HEADERS.has(name))
              kept[name] = Array.isArray(value) ? value.join(", ") : value;
          }
          // Next's route handlers answer in chunks; the baseline sends the same bytes with a length.
          kept["content-length"] ??= String(body.length);
          if (Number(kept["content-length"]) !== body.length)
            throw new Error(`${url}: content-length ${kept["content-length"]} for a body of ${body.length} bytes`);
          const json = kept["content-encoding"] === "gzip" ? gunzipSync(body) : body;
          const items = (JSON.parse(json.toString()) as { data: unknown[] }).data.length;
          resolve({ recorded: { status: response.statusCode, headers: kept, body: body.toString("base64") }, items });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    request.on("timeout", () => request.destroy(new Error(`${url}: no answer within 10 s`)));
    request.on("error", reject);
  });
}

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export type Baseline = { url: string; pid: number; output(): string; stop(): Promise<void> };

/** The baseline serving `recorded`, in a child process given `env` on top of this one's. */
export async function startBaseline(
  recorded: Recorded,
  dir: string,
  name: string,
  env: Record<string, string> = {},
): Promise<Baseline> {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(recorded));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "static-server.ts"), file], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.add(child);
  const exited = new Promise<void>((resolve) =>
    child.on("exit", () => {
      children.delete(child);
      resolve();
    }),
  );
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline not ready within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Ready on (http:\/\/\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`baseline exited before it was ready:\n${output}`)));
  });
  return {
    url,
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      child.kill("SIGTERM");
      await stopWithin(exited, child);
    },
  };
}

/** Waits for a child to end after SIGTERM; one still running after 15 s is killed. */
export async function stopWithin(exited: Promise<unknown>, child: ChildProcess): Promise<void> {
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function stopServer(server: RunningServer): Promise<void> {
  await stopWithin(server.stop(), server.process);
}
