import { expect, it } from "vitest";
import { openApiDocument } from "../../lib/api/documents/openapi.ts";
import { DELAY_SECONDS, describeApi, sleep } from "../../testing/api-suite.ts";
import {
  bearer,
  callTool,
  EARLIER_REVISIONS,
  legacyMcpClient,
  mcpClient,
  type ToolAnswer,
  type ToolCaller,
} from "../../testing/mcp.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { pacer } from "../../testing/pace.ts";
import { admin } from "../../testing/processes.ts";

// The MCP server at /mcp, reached as an assistant reaches it: the SDK's own client over Streamable
// HTTP at the protocol's current revision, against the built server, on both databases. Each tool
// is a face of one operation: the same data as the REST answer, the same entitlements and
// refusals, one counted request a call. Clients of the earlier revisions, and the SDK's 1.x
// client, which many assistants still ship, are served the same.

type OpenApi = {
  paths: Record<string, { get: { operationId: string; parameters: { name: string; required: boolean }[] } }>;
};

/** Each tool, the operation it faces, and arguments that the suite's fixtures answer. */
const FACES = [
  { tool: "account_status", path: "/api/v1/me", args: {} },
  { tool: "list_events", path: "/api/v1/events?sport=soccer&limit=3", args: { sport: "soccer", limit: 3 } },
  { tool: "get_event", path: "/api/v1/events/live-soc", args: { id: "live-soc" } },
  { tool: "get_lineups", path: "/api/v1/events/up-000/lineups", args: { id: "up-000" } },
  { tool: "get_odds", path: "/api/v1/odds?sport=soccer", args: { sport: "soccer" } },
  { tool: "get_event_odds", path: "/api/v1/events/live-soc/odds", args: { id: "live-soc" } },
  { tool: "changes_since", path: "/api/v1/changes?since=REVISION", args: { since: "REVISION" } },
  { tool: "state_as_of", path: "/api/v1/odds?as_of=REVISION", args: { as_of: "REVISION" } },
  {
    tool: "market_history",
    path: "/api/v1/events/live-soc/markets/live-soc:mw/history",
    args: { id: "live-soc", market_id: "live-soc:mw" },
  },
] as const;

/** The arguments with the placeholder revision filled in. */
const withRevision = (args: Record<string, unknown>, revision: number) =>
  Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name, value === "REVISION" ? String(revision) : value]),
  );

function answered(answer: ToolAnswer): asserts answer is Extract<ToolAnswer, { isError: false }> {
  expect(answer.isError, answer.summary).toBe(false);
}

function refused(answer: ToolAnswer, code: string): void {
  expect(answer.isError, answer.summary).toBe(true);
  expect(answer.problem).toMatchObject({ code, request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/) });
  expect(answer.summary).toBe(`${answer.problem!.title}: ${answer.problem!.detail}`);
}

describeApi(
  "the MCP server",
  (api) => {
    it("lists every tool with its operation's parameters, as the OpenAPI document names them", async () => {
      const client = await mcpClient(api.server.url);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(FACES.map((f) => f.tool).sort());
      const document = openApiDocument() as unknown as OpenApi;
      const operations = new Map(Object.entries(document.paths).map(([path, { get }]) => [path, get]));
      for (const face of FACES.filter((f) => f.tool !== "state_as_of")) {
        const template = [...operations.keys()].find((t) =>
          new RegExp(`^${t.replace(/\{\w+\}/g, "[^/]+")}$`).test(face.path.split("?")[0]!),
        )!;
        const parameters = operations.get(template)!.parameters;
        const schema = tools.find((t) => t.name === face.tool)!.inputSchema;
        expect(Object.keys(schema.properties ?? {}), face.tool).toEqual(parameters.map((p) => p.name));
        expect(schema.required ?? [], face.tool).toEqual(parameters.filter((p) => p.required).map((p) => p.name));
      }
      await client.close();
    });

    it("answers every tool with a production key with the REST operation's data, counted once a call", async () => {
      const key = api.enterprise.production.key;
      const client = await mcpClient(api.server.url, bearer(key));
      const pace = pacer(9);
      const odds = await api.fast("/api/v1/odds", { key });
      const revision = odds.body.meta.revision as number;
      let used = odds.body.meta.requests_used as number;
      for (const face of FACES) {
        const answer = await pace(() => callTool(client, face.tool, withRevision(face.args, revision)));
        answered(answer);
        expect(answer.meta, face.tool).toMatchObject({ sandbox: false, delay_seconds: 0, requests_used: used + 1 });
        const rest = await pace(() => api.fast(face.path.replace("REVISION", String(revision)), { key }));
        expect(rest.status, face.tool).toBe(200);
        used = rest.body.meta.requests_used as number;
        expect(used, `${face.tool}: one call, one request`).toBe((answer.meta.requests_used as number) + 1);
        if (face.tool === "account_status") {
          // The key itself stays out of an assistant's transcript: its hint names it.
          // Usage and the last use moved on with the REST call.
          const moving = { last_used_at: null, usage: null };
          expect({ ...(answer.data as object), ...moving }).toEqual({
            ...(rest.body.data as object),
            ...moving,
            key: `svc_sk_…${key.slice(-4)}`,
          });
        } else {
          expect(answer.data, face.tool).toEqual(rest.body.data);
        }
      }
      await client.close();
    });

    it("answers every tool with a sandbox key: the delayed view of its one sport", async () => {
      await sleep(Math.max(0, api.fixturesVisibleToSandboxAt - Date.now()));
      await sleep(1_100); // a second of its own: the sandbox allows 2 requests a second
      const client = await mcpClient(api.server.url, bearer(api.starter.sandbox.key));
      const pace = pacer(2);
      const first = await pace(() => callTool(client, "get_odds", {}));
      answered(first);
      for (const face of FACES) {
        const answer = await pace(() => callTool(client, face.tool, withRevision(face.args, first.meta.revision)));
        answered(answer);
        expect(answer.meta, face.tool).toMatchObject({
          sandbox: true,
          delay_seconds: DELAY_SECONDS,
          requests_quota: 1_000,
        });
      }
      const events = await pace(() => callTool(client, "list_events", { limit: 100 }));
      answered(events);
      const listed = events.data as { sport: string; sandbox: boolean }[];
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((e) => e.sport === "soccer" && e.sandbox)).toBe(true);
      const board = await pace(() => callTool(client, "get_odds", {}));
      answered(board);
      expect((board.data as { id: string }[]).map((e) => e.id)).toEqual(["susp-soc", "live-soc"]);
      expect(board.summary).toContain(`the feed as it was ${DELAY_SECONDS} s ago (sandbox)`);
      refused(await pace(() => callTool(client, "get_event", { id: "live-ten" })), "sport_not_covered");
      refused(await pace(() => callTool(client, "get_odds", { sport: "tennis" })), "sport_not_covered");
      await client.close();
    });

    it("counts tool calls only: connecting, listing and reading resources and prompts are free", async () => {
      const key = api.starter.production.key;
      const before = (await api.fast("/api/v1/me", { key })).body.meta.requests_used as number;
      const client = await mcpClient(api.server.url, bearer(key));
      await client.listTools();
      const { resources } = await client.listResources();
      for (const resource of resources) await client.readResource({ uri: resource.uri });
      await client.listPrompts();
      await client.getPrompt({ name: "live_summary", arguments: { sport: "soccer" } });
      await expect(client.callTool({ name: "place_bet", arguments: {} })).rejects.toThrow(/No tool place_bet/);
      const status = await callTool(client, "account_status");
      answered(status);
      expect(status.meta.requests_used).toBe(before + 1);
      const odds = await callTool(client, "get_odds");
      answered(odds);
      expect(odds.meta.requests_used).toBe(before + 2);
      // An argument the API refuses is a counted 400, as over HTTP.
      refused(await callTool(client, "get_event", { id: "bad id" }), "invalid_parameter");
      const after = (await api.fast("/api/v1/me", { key })).body.meta.requests_used as number;
      expect(after).toBe(before + 4);
      await client.close();
    });

    it("refuses as the API does: no key, revoked, expired, a stream token, another sport, arguments it does not take", async () => {
      const url = api.server.url;
      const none = await mcpClient(url);
      refused(await callTool(none, "get_odds"), "missing_api_key");
      const revoked = await mcpClient(url, bearer(api.gone.production.key));
      refused(await callTool(revoked, "account_status"), "key_revoked");
      const expired = await mcpClient(url, { "x-api-key": api.gone.sandbox.key });
      refused(await callTool(expired, "get_odds"), "key_expired");

      const minted = await api.fast<{ data: { token: string } }>("/api/v1/stream-token", {
        key: api.enterprise.production.key,
      });
      const token = minted.body.data.token;
      const byToken = await mcpClient(url, bearer(token));
      const tokenRefused = await callTool(byToken, "get_odds");
      refused(tokenRefused, "invalid_api_key");
      expect(tokenRefused.problem!.detail).toMatch(/Stream tokens \(svc_st_\) are for streams only/);
      const working = await mcpClient(url, bearer(api.starter.production.key));
      refused(await callTool(working, "get_odds", { token }), "invalid_api_key");
      refused(await callTool(working, "get_odds", { api_key: api.starter.production.key }), "invalid_api_key");
      refused(await callTool(working, "get_event", { id: "live-cs2" }), "sport_not_covered");
      refused(await callTool(working, "get_event", { id: "no-such-event" }), "not_found");
      const unknown = await callTool(working, "list_events", { page: 2 });
      refused(unknown, "unknown_parameter");
      expect(unknown.problem!.errors).toEqual([{ param: "page", message: expect.stringContaining("sport, status") }]);
      refused(await callTool(working, "state_as_of", {}), "invalid_parameter");
      for (const client of [none, revoked, expired, byToken, working]) await client.close();
    });

    it("refuses a key in the address, and every method but POST, before any message is read", async () => {
      const key = api.starter.production.key;
      const inUrl = await fetch(`${api.server.url}/mcp?api_key=${key}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(inUrl.status).toBe(401);
      expect(await inUrl.json()).toMatchObject({ code: "invalid_api_key" });
      for (const method of ["GET", "DELETE", "PUT"]) {
        const answer = await fetch(`${api.server.url}/mcp`, { method, headers: bearer(key) });
        expect(answer.status, method).toBe(405);
        expect(answer.headers.get("allow")).toBe("POST, OPTIONS");
        expect(await answer.json()).toMatchObject({ code: "method_not_allowed" });
      }
      const preflight = await fetch(`${api.server.url}/mcp`, {
        method: "OPTIONS",
        headers: { origin: "https://assistant.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
      for (const header of ["Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"]) {
        expect(preflight.headers.get("access-control-allow-headers")).toContain(header);
      }
    });

    it("serves clients of the earlier revisions and the SDK's 1.x client: listed, answered, refused, counted once a call", async () => {
      const key = api.enterprise.production.key;
      const pace = pacer(9);
      const clients: [string, ToolCaller & { close(): Promise<void> }][] = [];
      for (const revision of EARLIER_REVISIONS) {
        const client = await mcpClient(api.server.url, bearer(key), revision);
        expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        clients.push([`the current SDK at ${revision}`, client]);
      }
      clients.push(["the SDK's 1.x client", await legacyMcpClient(api.server.url, bearer(key))]);
      for (const [name, client] of clients) {
        const before = (await pace(() => api.fast("/api/v1/me", { key }))).body.meta.requests_used as number;
        const odds = await pace(() => callTool(client, "get_odds", { sport: "soccer" }));
        answered(odds);
        expect(odds.meta.requests_used, name).toBe(before + 1);
        const rest = await pace(() => api.fast("/api/v1/odds?sport=soccer", { key }));
        expect(odds.data, name).toEqual(rest.body.data);
        expect(rest.body.meta.requests_used, name).toBe(before + 2);
        refused(await pace(() => callTool(client, "get_event", { id: "no-such-event" })), "not_found");
        await client.close();
      }
      const revoked = await legacyMcpClient(api.server.url, bearer(api.gone.production.key));
      refused(await callTool(revoked, "account_status"), "key_revoked");
      await revoked.close();
    });

    it("logs each answer's length in its access line", async () => {
      const answer = await fetch(`${api.server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      const length = (await answer.arrayBuffer()).byteLength;
      expect(Number(answer.headers.get("content-length"))).toBe(length);
      const requestId = answer.headers.get("x-request-id")!;
      await expect
        .poll(() =>
          api.server
            .output()
            .split("\n")
            .find((line) => line.includes(`"request_id":"${requestId}"`) && line.includes('"path":"/mcp"')),
        )
        .toContain(`"bytes":${length}`);
    });

    it("refuses calls beyond the key's per-second limit, and those beyond its quota, saying when to call again", async () => {
      await sleep(1_100);
      const limited = await mcpClient(api.server.url, bearer(api.starter.sandbox.key));
      const burst = await Promise.all(Array.from({ length: 6 }, () => callTool(limited, "account_status")));
      const over = burst.filter((answer) => answer.isError);
      expect(over.length).toBeGreaterThanOrEqual(1);
      for (const answer of over) {
        refused(answer, "rate_limited");
        expect(answer.problem).toMatchObject({ "violated-policies": ["second"], retry_after: expect.any(Number) });
        expect(answer.problem!.retry_after).toBeGreaterThanOrEqual(1);
      }

      const full = await mcpClient(api.server.url, bearer(api.full.sandbox.key));
      const last = await callTool(full, "account_status");
      answered(last);
      expect(last.meta).toMatchObject({ requests_used: 1_000, requests_quota: 1_000 });
      await sleep(1_100);
      const now = new Date();
      const untilNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
      const exhausted = await callTool(full, "get_odds");
      refused(exhausted, "quota_exceeded");
      expect(exhausted.problem!["violated-policies"]).toEqual(["month"]);
      expect(Math.abs(exhausted.problem!.retry_after! - untilNextMonth)).toBeLessThan(5);
      await limited.close();
      await full.close();
    });

    it.runIf(api.backend.name === "postgres")(
      "refuses a key's very next call once it is revoked elsewhere, on the same connection",
      async () => {
        const other = await organisationWithKeys(api.database().env, "mcp-revoked-org", {
          plan: "starter",
          sandboxSport: "soccer",
        });
        const client = await mcpClient(api.server.url, bearer(other.production.key));
        answered(await callTool(client, "get_odds"));
        await admin(["key", "revoke", "--id", other.production.id], api.database().env);
        refused(await callTool(client, "get_odds"), "key_revoked");
        await client.close();
      },
    );
  },
  { nodeOnly: true },
);
