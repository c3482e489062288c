import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachBackend, useTestDatabase } from "../../testing/databases.ts";
import { organisationWithKeys } from "../../testing/organisations.ts";
import { startServer, type RunningServer } from "../../testing/processes.ts";
import { openSse, type Received, type SseClient } from "../../testing/sse.ts";

// A property of every stream over a long simulated run: for every client, however often it drops
// and resumes, however slowly it reads, the ids it receives are strictly increasing, and every
// change it did not receive is announced (a resync snapshot, or a conflated message on the board).
// What a client missed is judged against a witness: a client of the same stream that reads fast and
// never disconnects. `npm test` runs it briefly; `npm run test:streams-long` runs it for 5 minutes.

const SECONDS = Number(process.env.STREAMS_PROPERTY_SECONDS ?? 10);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seeded, so that a failing run can be repeated with the same drops and pauses. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Follower = { name: string; path: string; headers: Record<string, string>; received: Received[] };

/** Follows `path` until `until`, dropping the connection at random and resuming with the last id. */
async function churn(
  url: string,
  follower: Follower,
  until: number,
  next: () => number,
  style: "drop" | "sleep",
): Promise<{ connections: number; refused: number; ended: boolean }> {
  let connections = 0;
  let refused = 0;
  let ended = false;
  let lastId: number | undefined;
  while (Date.now() < until) {
    const byQuery = next() < 0.5;
    const resume =
      lastId === undefined ? "" : byQuery ? `${follower.path.includes("?") ? "&" : "?"}last_event_id=${lastId}` : "";
    const headers =
      lastId !== undefined && !byQuery ? { ...follower.headers, "last-event-id": String(lastId) } : follower.headers;
    const client: SseClient = await openSse(`${url}${follower.path}${resume}`, { headers });
    if (client.status === 204) {
      // The event is over and the follower has everything up to its end: nothing more to follow.
      ended = true;
      break;
    }
    if (client.status !== 200) {
      // Over a limit while the previous connection is still being let go: wait as told.
      refused++;
      await sleep(Number(client.headers["retry-after"] ?? 1) * 1000);
      continue;
    }
    connections++;
    const lived = Math.max(0, Math.min(until - Date.now(), 300 + next() * 2_000));
    if (style === "sleep") {
      // Stop reading for a while: the server's buffer for this client fills up.
      await sleep(lived / 3);
      client.pause();
      await sleep(lived / 3);
      client.resume();
      await sleep(lived / 3);
    } else {
      await sleep(lived);
    }
    client.close();
    await client.closed;
    follower.received.push(...client.messages);
    lastId = client.lastId() ?? lastId;
  }
  return { connections, refused, ended };
}

/**
 * The property for one client against its stream's witness. Returns the broken cases, empty when
 * it holds, and what the client was told about its gaps.
 */
function check(received: Received[], witness: Received[]) {
  const ids = received.flatMap((m) => (m.id === undefined ? [] : [m.id]));
  const problems: string[] = [];
  for (let i = 1; i < ids.length; i++) {
    if (ids[i]! <= ids[i - 1]!) problems.push(`id ${ids[i]} after ${ids[i - 1]}`);
  }
  const witnessed = witness.flatMap((m) => (m.id === undefined ? [] : [m.id]));
  const first = witnessed[0] ?? Infinity;
  const last = witnessed.at(-1) ?? -Infinity;
  let announced = 0;
  const withIds = received.filter((m) => m.id !== undefined);
  for (let i = 1; i < withIds.length; i++) {
    const before = withIds[i - 1]!.id!;
    const message = withIds[i]!;
    if (before < first || message.id! > last) continue; // outside what the witness saw
    const missed = witnessed.filter((id) => id > before && id < message.id!);
    if (missed.length === 0) continue;
    const told = message.data.resync === true || message.data.conflated === true;
    if (told) announced++;
    else problems.push(`missed ${missed.join(",")} between ${before} and ${message.id} (${message.event}) unannounced`);
  }
  return { problems, announced, messages: withIds.length };
}

describeEachBackend("stream ordering over a long simulated run on $name", (backend) => {
  const database = useTestDatabase(backend);
  let server: RunningServer;
  let production: Record<string, string>;
  let sandbox: Record<string, string>;

  beforeAll(async () => {
    const env = database().env;
    const keys = await organisationWithKeys(env, "ordering-org", { plan: "enterprise", sandboxSport: "soccer" });
    production = { authorization: `Bearer ${keys.production.key}` };
    sandbox = { authorization: `Bearer ${keys.sandbox.key}` };
    server = await startServer({
      ...env,
      SIM: "on",
      SIM_SPEED: "120",
      SANDBOX_DELAY_SECONDS: "2",
      STREAM_BUFFER_BYTES: "65536",
    });
  });

  afterAll(() => server?.stop());

  it(
    "gives every client strictly increasing ids, and announces every change it missed",
    async () => {
      // Wait for the simulator to put events in play.
      let live: { id: string; sport: string }[] = [];
      for (let i = 0; i < 100 && live.length < 2; i++) {
        const page = (await (
          await fetch(`${server.url}/api/v1/events?status=live&limit=100`, { headers: production })
        ).json()) as { data: { id: string; sport: string }[] };
        live = page.data;
        if (live.length < 2) await sleep(200);
      }
      expect(live.length).toBeGreaterThanOrEqual(2);
      const streams = [
        { path: "/api/v1/odds/stream", headers: production },
        { path: `/api/v1/events/${live[0]!.id}/stream`, headers: production },
        { path: `/api/v1/events/${live[1]!.id}/stream`, headers: production },
        { path: "/api/v1/odds/stream?sport=soccer", headers: sandbox },
      ];
      const witnesses = await Promise.all(
        streams.map((s) => openSse(`${server.url}${s.path}`, { headers: s.headers })),
      );
      for (const witness of witnesses) expect(witness.status).toBe(200);
      await sleep(300);

      const until = Date.now() + SECONDS * 1000;
      const next = random(20261123);
      const followers: (Follower & { style: "drop" | "sleep" })[] = streams.flatMap((s, i) => {
        // The sandbox key may hold 2 streams: its witness and one follower.
        const styles: ("drop" | "sleep")[] = s.headers === sandbox ? ["drop"] : ["drop", "drop", "sleep"];
        return styles.map((style, j) => ({ name: `${i}.${j} ${style} ${s.path}`, ...s, style, received: [] }));
      });
      const runs = await Promise.all(followers.map((f) => churn(server.url, f, until, next, f.style)));
      await sleep(2_500); // the witnesses see the last changes the followers saw, the sandbox's too
      for (const witness of witnesses) witness.close();

      const report = followers.map((follower, i) => {
        const witness =
          witnesses[streams.findIndex((s) => s.path === follower.path && s.headers === follower.headers)]!;
        return { follower: follower.name, ...runs[i]!, ...check(follower.received, witness.messages) };
      });
      console.log(
        `${SECONDS} s: ${report.map((r) => `${r.follower}: ${r.messages} messages, ${r.connections} connections, ${r.announced} gaps announced`).join("; ")}`,
      );
      for (const witness of witnesses) expect(check(witness.messages, []).problems).toEqual([]);
      for (const r of report) {
        expect(r.problems, r.follower).toEqual([]);
        // A follower of an event that ended early may have needed only the one connection.
        if (!r.ended) expect(r.connections, r.follower).toBeGreaterThan(1);
        expect(r.messages, r.follower).toBeGreaterThan(0);
      }
    },
    SECONDS * 1000 + 60_000,
  );
});
