// What bench/api.ts and bench/api-profile.ts share: a scratch DATA_DIR holding one organisation
// with a licence and a production key on a plan no load reaches, and the baseline
// (bench/static-server.ts) serving a recorded copy of one of our answers.
import { writeFileSync } from "node:fs";
import { get } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { seed } from "../seeds/index.ts";
import { keyOnOwnPlan, withDatabase } from "../testing/organisations.ts";
import { startProcess, type StartedProcess } from "../testing/processes.ts";
import { READY_LINE } from "../testing/ready.ts";
import { BENCH_PLAN } from "./data.ts";
import type { Target } from "./load.ts";

/**
 * Seeds the scratch database and makes the key the load uses. Every plan on offer refuses this
 * load (pro above 50 requests per second, enterprise above 200), and plans cannot be edited for
 * the benchmark, so the key's organisation is on a plan of its own (BENCH_PLAN).
 */
export async function createKey(dataDir: string): Promise<string> {
  const at = new Date();
  const { key } = await withDatabase({ DATA_DIR: dataDir }, async (db) => {
    await seed(db, at);
    return keyOnOwnPlan(db, BENCH_PLAN, at);
  });
  return key;
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

export type Baseline = StartedProcess & { url: string; pid: number };

/** The baseline serving `recorded`, in a child process given `env` on top of a clean one. */
export async function startBaseline(
  recorded: Recorded,
  dir: string,
  name: string,
  env: Record<string, string> = {},
): Promise<Baseline> {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(recorded));
  const baseline = startProcess(path.join(import.meta.dirname, "static-server.ts"), {
    args: [file],
    env,
    ready: READY_LINE,
    readyWithinMs: 10_000,
    name: "the baseline",
  });
  const ready = await baseline.ready;
  return { ...baseline, url: ready[1]!, pid: baseline.process.pid! };
}

/** Stops a server or a baseline: SIGTERM, then SIGKILL for one still running after 15 s. */
export async function stopServer(server: StartedProcess): Promise<void> {
  await server.stop("SIGTERM", 15_000);
}

/** A request as the load generator sends it, without the process measured. */
export type LoadRequest = Omit<Target, "pid">;

/** The protocol revisions bench:api calls the MCP server at: the current one, and the 2025 one 1.x clients speak. */
export const MCP_REVISIONS = ["2026-07-28", "2025-11-25"] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];

/**
 * The MCP server's get_odds as a client sends each call: one POST of a JSON-RPC tools/call,
 * answered through the same pipeline as GET /api/v1/odds, then read, summarised and written again
 * as the tool's result. At 2026-07-28 the request carries its revision, client and capabilities
 * (`_meta`, and the method and tool in headers); at 2025-11-25 it is a stateless client's call
 * after its `initialize`, which needs nothing of it.
 */
export function mcpGetOdds(baseUrl: string, headers: Record<string, string>, revision: McpRevision): LoadRequest {
  const modern = revision === "2026-07-28";
  const params = { name: "get_odds", arguments: {} };
  const meta = {
    "io.modelcontextprotocol/protocolVersion": revision,
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return {
    url: `${baseUrl}/mcp`,
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": revision,
      ...(modern && { "mcp-method": "tools/call", "mcp-name": "get_odds" }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: modern ? { ...params, _meta: meta } : params,
    }),
  };
}

/** The call answered with a board of `events` events (as JSON, or as a one-message event stream); its bytes. */
export async function checkMcpGetOdds(request: LoadRequest, events: number): Promise<number> {
  const answer = await fetch(request.url, request);
  const text = await answer.text();
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "");
  const result = (
    JSON.parse(json || "{}") as { result?: { isError?: boolean; structuredContent?: { data: unknown[] } } }
  ).result;
  if (!answer.ok || result?.isError || result?.structuredContent?.data.length !== events) {
    throw new Error(`${request.url} get_odds answered ${answer.status}: ${text.slice(0, 300)}`);
  }
  return Buffer.byteLength(text);
}
