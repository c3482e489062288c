import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { generateKey } from "../lib/keys/format.ts";
import { randomBase62 } from "../lib/ids.ts";
import { signIn } from "../testing/console.ts";
import { residentBytes } from "../testing/cpu.ts";
import { requestQueries, sample, scrape } from "../testing/metrics.ts";
import { pacer } from "../testing/pace.ts";
import { rawConnect, rawExchange, requestHead, writeDrained } from "../testing/raw-http.ts";
import { inParallel, sleep, type Finding } from "./report.ts";

// The abuse checks: keys guessed and malformed at a high rate, headers abused, streams pushed past
// their limits, the provider ingest sent too much, garbage and wrong tokens. Each returns what it
// found wrong and the figures it measured.

export type Target = {
  baseUrl: string;
  pid: number;
  metricsToken: string;
  feedToken: string;
  production: string[];
  sandbox: string;
  /** Events in play, with markets: the board streams' and the odds' content. */
  liveEventIds: string[];
  /** How the server was started. */
  headersTimeoutSeconds: number;
  streamBufferBytes: number;
  /** Moves the history kept past everything so far (PostgreSQL only: PGlite is the server's alone). */
  prune?: () => Promise<void>;
  /** Posts provider updates, failing unless every line applied. */
  ingest: (updates: unknown[]) => Promise<number>;
  members: Members;
};

/** Console members who sign in with a password: of the licensed organisation, and of one without a licence. */
export type Members = {
  licensed: { email: string; password: string };
  unlicensed: { email: string; password: string; sandboxSport: string };
};

export type CheckResult = { findings: Finding[]; figures: Record<string, string | number> };

const problemOf = (text: string) => {
  try {
    return JSON.parse(text) as { code?: string; status?: number; "violated-policies"?: string[] };
  } catch {
    return null;
  }
};

function badChecksum(): string {
  const key = generateKey(Math.random() < 0.5 ? "production" : "sandbox");
  const last = key.at(-1)!;
  return `${key.slice(0, -1)}${last === "x" ? "y" : "x"}`;
}

/** Keys that fail before any lookup: the checksum, the prefix, the length, the alphabet. */
function malformedKey(i: number): string {
  switch (i % 8) {
    case 0:
    case 1:
    case 2:
      return badChecksum();
    case 3:
      return `svc_sk_${randomBase62(32)}`; // a random tail: its checksum matches one time in 56 billion
    case 4:
      return generateKey("production").slice(0, 20);
    case 5:
      return `svc_xx_${randomBase62(32)}`;
    case 6:
      return `svc_sk_${randomBase62(1 + (i % 2_000))}`;
    default:
      return `SVC_SK_${randomBase62(32)}`;
  }
}

/**
 * Malformed and invented keys at a high rate: every one refused with 401, never 429, and without a
 * single database statement (the checksum, then the index of every key's hash).
 */
export async function keyFlood(
  target: Target,
  malformed: number,
  guessed: number,
  unknown: number,
): Promise<CheckResult> {
  const findings: Finding[] = [];
  const statuses = new Map<number, number>();
  const send = async (key: string, header: "authorization" | "x-api-key") => {
    const response = await fetch(`${target.baseUrl}/api/v1/events`, {
      headers: header === "authorization" ? { authorization: `Bearer ${key}` } : { "x-api-key": key },
    });
    const body = problemOf(await response.text());
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status !== 401 || body?.code !== "invalid_api_key") {
      findings.push({ check: "key flood", problem: `a wrong key answered ${response.status} ${body?.code ?? ""}` });
    }
  };
  await sleep(500); // what earlier requests set going has settled
  const before = await requestQueries(target.baseUrl, target.metricsToken);
  const started = performance.now();
  await inParallel(malformed, 32, (i) => send(malformedKey(i), i % 2 ? "authorization" : "x-api-key"));
  const seconds = (performance.now() - started) / 1000;
  const afterMalformed = await requestQueries(target.baseUrl, target.metricsToken);
  if (afterMalformed !== before) {
    findings.push({
      check: "key flood",
      problem: `${malformed} keys that fail their checksum made ${afterMalformed - before} database statements, not 0`,
    });
  }
  // Keys with a valid checksum that nobody holds: refused from the index of every key's hash,
  // without a read and never with a 429 (an address's new keys must keep working after guesses).
  const guessedKeys: string[] = [];
  for (let i = 0; i < guessed; i++) {
    const key = generateKey(i % 2 ? "production" : "sandbox");
    guessedKeys.push(key);
    const response = await fetch(`${target.baseUrl}/api/v1/events`, { headers: { "x-api-key": key } });
    const body = problemOf(await response.text());
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status !== 401 || body?.code !== "invalid_api_key") {
      findings.push({ check: "key flood", problem: `a guessed key answered ${response.status} ${body?.code ?? ""}` });
    }
  }
  const afterGuessed = await requestQueries(target.baseUrl, target.metricsToken);
  if (afterGuessed !== afterMalformed) {
    findings.push({
      check: "key flood",
      problem: `${guessedKeys.length} guessed keys made ${afterGuessed - afterMalformed} database statements, not 0`,
    });
  }
  // Then the flood: well-formed keys nobody holds, half of them ones already refused, half new.
  // Not one database statement, and not one 429.
  let failed = 0;
  await inParallel(unknown, 32, async (i) => {
    const key = i % 2 ? guessedKeys[i % guessedKeys.length]! : generateKey(i % 4 ? "production" : "sandbox");
    let response: Response;
    try {
      response = await fetch(`${target.baseUrl}/api/v1/events`, { headers: { "x-api-key": key } });
    } catch {
      failed++; // a server overwhelmed by the reads: said once below, the count goes on
      return;
    }
    const body = problemOf(await response.text());
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status !== 401) {
      findings.push({ check: "key flood", problem: `an unknown key answered ${response.status} ${body?.code ?? ""}` });
    }
  });
  if (failed > 0) findings.push({ check: "key flood", problem: `${failed} requests with unknown keys failed` });
  const afterUnknown = await requestQueries(target.baseUrl, target.metricsToken);
  if (afterUnknown !== afterGuessed) {
    findings.push({
      check: "key flood",
      problem: `${unknown} well-formed unknown keys made ${afterUnknown - afterGuessed} database statements, not 0`,
    });
  }
  // The address's own key still works.
  const own = await fetch(`${target.baseUrl}/api/v1/me`, { headers: { "x-api-key": target.production[0]! } });
  await own.arrayBuffer();
  if (own.status !== 200) {
    findings.push({ check: "key flood", problem: `a valid key from the refused address answered ${own.status}` });
  }
  return {
    findings,
    figures: {
      "malformed keys sent": malformed,
      "malformed keys per second": Math.round(malformed / seconds),
      "database statements for malformed keys": afterMalformed - before,
      "guessed keys sent": guessedKeys.length,
      "database statements for guessed keys": afterGuessed - afterMalformed,
      "well-formed unknown keys sent after": unknown,
      "database statements for them": afterUnknown - afterGuessed,
      "key flood statuses": [...statuses].map(([s, n]) => `${s}×${n}`).join(" "),
    },
  };
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** GET with node:http, which neither decompresses nor normalises what it is given. */
function get(baseUrl: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")));
    req.end();
  });
}

/** Headers abused: thousands, a megabyte, both credentials, odd encodings and conditions, a trickle. */
export async function headerAbuse(target: Target): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const key = target.production[0]!;
  const fail = (problem: string) => findings.push({ check: "headers", problem });
  const host: [string, string] = ["Host", new URL(target.baseUrl).host];

  // Five hundred small headers fit Node's 16 KB for a request's head: answered as usual. Thousands
  // do not: 431 from the HTTP parser, before anything else is done.
  for (const count of [500, 5_000]) {
    const headers: [string, string][] = [host, ["X-Api-Key", key], ["Connection", "close"]];
    for (let i = 0; i < count; i++) headers.push([`X-H${i}`, "1"]);
    const answer = await rawExchange(
      target.baseUrl,
      // Written, not ended: a client that half-closes before its answer has its request aborted.
      (s) => void s.write(requestHead("GET", "/api/v1/me", headers)),
      10_000,
    );
    figures[`${count} headers`] = answer.status ?? "closed";
    const expected = count === 500 ? 200 : 431;
    if (answer.status !== expected)
      fail(`${count} headers answered ${answer.status ?? "nothing"}, expected ${expected}`);
  }

  // A one-megabyte header: refused (431) as soon as it passes the limit, not read whole.
  let bigSent = 0;
  const big = await rawExchange(
    target.baseUrl,
    async (socket) => {
      await writeDrained(socket, `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nX-Big: `);
      for (let i = 0; i < 64 && !socket.destroyed; i++) {
        if (await writeDrained(socket, "a".repeat(16_384))) bigSent += 16_384;
      }
      await writeDrained(socket, "\r\n\r\n");
    },
    10_000,
  );
  figures["1 MB header"] = `${big.status ?? "closed"} after ${big.closedAfterMs} ms, ${bigSent} bytes of it taken`;
  // 431, or (when the close overtakes the answer) a connection cut before the header was all sent.
  if (big.status !== 431 && !(big.status === null && !big.timedOut && bigSent < 1_048_576)) {
    fail(`a 1 MB header answered ${big.status ?? "nothing"}, expected 431`);
  }

  // Both credential headers: the same key is one key; two keys are a conflict, neither counted.
  const both = async (authorization: string, apiKey: string) =>
    get(target.baseUrl, "/api/v1/me", { authorization: `Bearer ${authorization}`, "x-api-key": apiKey });
  const same = await both(key, key);
  if (same.status !== 200) fail(`the same key in both headers answered ${same.status}`);
  const different = await both(key, target.sandbox);
  const conflict = problemOf(different.body.toString());
  if (different.status !== 400 || conflict?.code !== "conflicting_credentials") {
    fail(`two keys answered ${different.status} ${conflict?.code ?? ""}, expected 400 conflicting_credentials`);
  }
  const wrongAndRight = await both(badChecksum(), key);
  if (wrongAndRight.status !== 400)
    fail(`a wrong key beside a right one answered ${wrongAndRight.status}, expected 400`);
  figures["both credential headers"] = `${same.status}/${different.status}/${wrongAndRight.status}`;

  // Accept-Encoding: whatever it says, the body is what Content-Encoding says it is.
  const encodings = [
    "gzip",
    "GZIP",
    "gzip;q=0",
    "*;q=0",
    "gzip;q=0, *",
    "*",
    "identity",
    "identity;q=0",
    "br",
    "gzip;q=abc",
    "gzip;q=1e999",
    "gzip;q=-1",
    ";;;,,,",
    "x-gzip",
    "gzip, deflate, br, zstd",
    Array.from({ length: 500 }, (_, i) => `enc${i};q=0.${i % 10}`).join(", "),
  ];
  const mustNotGzip = new Set(["gzip;q=0", "*;q=0", "gzip;q=0, *", "identity", "br", "gzip;q=-1", ";;;,,,", "x-gzip"]);
  let odd = 0;
  for (const encoding of encodings) {
    const answer = await get(target.baseUrl, "/api/v1/odds", { "x-api-key": key, "accept-encoding": encoding });
    const gzipped = answer.headers["content-encoding"] === "gzip";
    if (answer.status !== 200) fail(`Accept-Encoding "${encoding.slice(0, 40)}" answered ${answer.status}`);
    try {
      JSON.parse((gzipped ? gunzipSync(answer.body) : answer.body).toString());
    } catch {
      fail(`Accept-Encoding "${encoding.slice(0, 40)}": the body is not what Content-Encoding says`);
    }
    if (gzipped && mustNotGzip.has(encoding)) fail(`Accept-Encoding "${encoding}" was answered with gzip`);
    if (!gzipped && (encoding === "gzip" || encoding === "GZIP")) fail(`Accept-Encoding "${encoding}" was not gzipped`);
    odd++;
  }
  figures["Accept-Encoding values"] = odd;

  // If-None-Match: lists, wildcards, long and broken ones.
  const first = await get(target.baseUrl, "/api/v1/events", { "x-api-key": key });
  const etag = String(first.headers.etag);
  const conditions: [string, number][] = [
    [etag, 304],
    [etag.replace(/^W\//, ""), 304],
    [`"nope", W/"other", ${etag}`, 304],
    ["*", 304],
    [[...Array.from({ length: 800 }, (_, i) => `W/"${i.toString(36)}"`), etag].join(", "), 304],
    [Array.from({ length: 800 }, (_, i) => `W/"${i.toString(36)}"`).join(", "), 200],
    ["W/", 200],
    [",,,,", 200],
    ["x".repeat(8_000), 200],
    [`"${"\\".repeat(100)}`, 200],
  ];
  for (const [condition, expected] of conditions) {
    const answer = await get(target.baseUrl, "/api/v1/events", { "x-api-key": key, "if-none-match": condition });
    if (answer.status !== expected) {
      fail(`If-None-Match "${condition.slice(0, 40)}…" answered ${answer.status}, expected ${expected}`);
    }
    if (answer.status === 304 && answer.body.length > 0) fail("a 304 came with a body");
  }
  figures["If-None-Match values"] = conditions.length;

  // A client sending its headers a byte at a time is cut off once HEADERS_TIMEOUT_SECONDS pass.
  const request = requestHead("GET", "/api/v1/me", [host, ["X-Api-Key", key], ["X-Pad", "p".repeat(400)]]);
  const slow = await rawExchange(
    target.baseUrl,
    async (socket) => {
      for (let i = 0; i < request.length && !socket.destroyed; i++) {
        socket.write(request[i]!);
        await sleep(100);
      }
    },
    target.headersTimeoutSeconds * 1000 + 10_000,
  );
  figures["slow client closed after"] = `${slow.closedAfterMs} ms (${slow.status ?? "no status"})`;
  if (slow.timedOut || slow.closedAfterMs > target.headersTimeoutSeconds * 1000 + 2_500) {
    fail(`a client trickling its headers was still connected after ${slow.closedAfterMs} ms`);
  }
  if (slow.status !== 408) fail(`a client trickling its headers got ${slow.status ?? "no answer"}, expected 408`);
  return { findings, figures };
}

type OpenStream = { status: number; text: () => string; close: () => void; socket: ReturnType<typeof rawConnect> };

/** Opens a stream on a raw connection; `paused` stops reading once the answer's head is in. */
async function openStream(
  target: Target,
  path: string,
  headers: [string, string][],
  paused = false,
): Promise<OpenStream> {
  const socket = rawConnect(target.baseUrl);
  let received = "";
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  socket.write(requestHead("GET", path, [["Host", "localhost"], ["Accept", "text/event-stream"], ...headers]));
  const status = await new Promise<number>((resolve) => {
    const onData = (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match && received.includes("\r\n\r\n")) {
        if (paused) {
          socket.pause();
          socket.off("data", onData);
        }
        resolve(Number(match[1]));
      }
    };
    socket.on("data", onData);
    socket.once("close", () => resolve(0));
  });
  return { status, text: () => received, close: () => socket.destroy(), socket };
}

async function waitFor(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

/** Updates moving every market of the live events: a board stream's traffic, `rounds` times. */
function marketStorm(eventIds: string[], round: number, sequenceBase: number) {
  return eventIds.map((eventId, i) => ({
    event_id: eventId,
    sequence: sequenceBase + round,
    markets: Array.from({ length: 12 }, (_, m) => ({
      id: `${eventId}:storm-${m}`,
      type: "match_winner",
      name: `Storm market ${m} ${"·".repeat(60)}`,
      line: null,
      status: "open",
      outcomes: Array.from({ length: 40 }, (_, o) => ({
        id: `${eventId}:storm-${m}:${o}`,
        name: `Outcome ${o} ${"x".repeat(80)}`,
        price: Number((1.5 + ((round + o + i) % 50) / 10).toFixed(2)),
        status: "active",
      })),
    })),
  }));
}

/** Streams pushed: past the key's limit, resumed from long ago, and a client that never reads. */
export async function streamAbuse(target: Target, stormRounds: number): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const fail = (problem: string) => findings.push({ check: "streams", problem });

  // The sandbox key may hold two streams: a third is 429 with violated-policies ["streams"].
  const pace = pacer(2);
  const sandbox: [string, string][] = [["X-Api-Key", target.sandbox]];
  const held: OpenStream[] = [];
  for (let i = 0; i < 2; i++) {
    held.push(await pace(() => openStream(target, "/api/v1/odds/stream", sandbox)));
  }
  const third = await openStream(target, "/api/v1/odds/stream", sandbox);
  await waitFor(() => third.text().includes("}"), 5_000);
  const refusal = problemOf(third.text().slice(third.text().indexOf("\r\n\r\n") + 4));
  figures["streams over the limit"] = `${held.map((s) => s.status).join(",")} then ${third.status}`;
  if (held.some((s) => s.status !== 200)) fail(`the key's first two streams answered ${held.map((s) => s.status)}`);
  if (third.status !== 429 || refusal?.["violated-policies"]?.[0] !== "streams") {
    fail(`a stream over the key's limit answered ${third.status} ${JSON.stringify(refusal)}`);
  }
  for (const stream of [...held, third]) stream.close();
  // Closed streams give their places back, once the server has seen them close: asked until then.
  const deadline = Date.now() + 10_000;
  let again: OpenStream;
  for (;;) {
    again = await pace(() => openStream(target, "/api/v1/odds/stream", sandbox));
    if (again.status !== 429 || Date.now() > deadline) break;
    again.close();
  }
  if (again.status !== 200) fail(`a stream after closing the others answered ${again.status} for 10 s`);
  again.close();

  // Resuming from ids the instance cannot place, or from before the history kept.
  const production: [string, string][] = [["X-Api-Key", target.production[0]!]];
  const resumes: [string, string][] = [
    ["abc", "unknown_id"],
    ["-1", "unknown_id"],
    ["999999999999999", "unknown_id"],
  ];
  if (target.prune) {
    await target.prune();
    resumes.push(["1", "retention_exceeded"]);
  }
  for (const [id, reason] of resumes) {
    const stream = await openStream(target, "/api/v1/odds/stream", [...production, ["Last-Event-ID", id]]);
    const arrived = await waitFor(() => /event: snapshot\ndata: .*\n\n/.test(stream.text()), 8_000);
    const snapshot = /event: snapshot\ndata: (.*)\n\n/.exec(stream.text())?.[1];
    const data = snapshot ? (JSON.parse(snapshot) as { resync?: boolean; reason?: string }) : null;
    if (!arrived || data?.resync !== true || data.reason !== reason) {
      fail(`Last-Event-ID ${id} began with ${snapshot?.slice(0, 120) ?? "nothing"}, expected a ${reason} resync`);
    }
    stream.close();
  }
  figures["resumes from ids it cannot place"] = resumes.map(([id, reason]) => `${id}→${reason}`).join(", ");

  // A board client that never reads: the server holds at most STREAM_BUFFER_BYTES for it, stops
  // writing, and once it reads again sends the latest state marked conflated.
  const before = await scrape(target.baseUrl, target.metricsToken);
  const rssBefore = residentBytes(target.pid);
  const stalled = await openStream(target, "/api/v1/odds/stream", production, true);
  let sent = 0;
  for (let round = 0; round < stormRounds; round++) {
    const updates = marketStorm(target.liveEventIds, round, 1_000);
    sent += Buffer.byteLength(JSON.stringify(updates));
    await target.ingest(updates);
  }
  await sleep(500);
  const after = await scrape(target.baseUrl, target.metricsToken);
  const rssStalled = residentBytes(target.pid);
  // Past STREAM_BUFFER_BYTES unsent, the server stops writing to the client and drops messages.
  const dropped = sample(after, "stream_dropped_total") - sample(before, "stream_dropped_total");
  figures["never-reading client: feed sent"] = `${(sent / 1e6).toFixed(1)} MB in ${stormRounds} rounds`;
  figures["never-reading client: messages not sent"] = dropped;
  if (dropped === 0) fail("a client that never read was still being written to (no message dropped)");
  let caughtUp = "";
  stalled.socket.on("data", (chunk: Buffer) => {
    caughtUp += chunk.toString("utf8");
    if (caughtUp.length > 4_000_000) caughtUp = caughtUp.slice(-1_000_000);
  });
  stalled.socket.resume();
  if (!(await waitFor(() => caughtUp.includes('"conflated":true'), 15_000))) {
    fail("a client that read again was not sent the latest state marked conflated");
  }
  stalled.close();
  // Figures only: the storm's ingest grows the server too (PGlite's heap never shrinks); whether
  // memory comes back is the suite's last check.
  figures["never-reading client: server memory"] =
    `${(rssBefore / 1e6).toFixed(0)} MB before, ${(rssStalled / 1e6).toFixed(0)} MB while stalled`;
  return { findings, figures };
}

/** The provider ingest: too much, garbage, and wrong tokens at a high rate. */
export async function ingestAbuse(target: Target, wrongTokens: number): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const fail = (problem: string) => findings.push({ check: "ingest", problem });
  const path = "/api/feed/v1/updates";
  const auth: [string, string] = ["Authorization", `Bearer ${target.feedToken}`];
  const host: [string, string] = ["Host", new URL(target.baseUrl).host];
  const ndjson: [string, string] = ["Content-Type", "application/x-ndjson"];

  // 50 MB announced: refused from the header, while the client has sent 64 KB of it.
  const declared = await rawExchange(
    target.baseUrl,
    async (socket) => {
      await writeDrained(
        socket,
        requestHead("POST", path, [host, auth, ndjson, ["Content-Length", String(50 * 1024 * 1024)]]),
      );
      await writeDrained(socket, Buffer.alloc(65_536, 0x20));
      // The answer comes without the rest of the body; the connection is then ours to close.
      await new Promise((resolve) => {
        socket.once("data", resolve);
        setTimeout(resolve, 5_000);
      });
      await sleep(100);
      socket.destroy();
    },
    10_000,
  );
  figures["50 MB announced"] = `${declared.status ?? "nothing"} after 64 KB sent`;
  if (declared.status !== 413) fail(`a body announced as 50 MB answered ${declared.status ?? "nothing"}, expected 413`);

  // A chunked body with no length that goes on: refused once it passes the limit, not read whole.
  let written = 0;
  const endless = await rawExchange(
    target.baseUrl,
    async (socket) => {
      await writeDrained(socket, requestHead("POST", path, [host, auth, ndjson, ["Transfer-Encoding", "chunked"]]));
      const line = `${JSON.stringify({ event_id: "x", sequence: 1, lineups: { home: [], away: [] } })}\n`.repeat(600);
      const chunk = `${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`;
      while (!socket.destroyed && written < 40 * 1024 * 1024) {
        if (!(await writeDrained(socket, chunk))) break;
        written += chunk.length;
      }
    },
    30_000,
  );
  figures["endless chunked body"] = `${endless.status ?? "nothing"} after ${(written / 1e6).toFixed(1)} MB sent`;
  if (endless.status !== 413) fail(`an endless chunked body answered ${endless.status ?? "nothing"}, expected 413`);
  if (written >= 40 * 1024 * 1024) fail("an endless chunked body was read for 40 MB");

  // Garbage lines are each rejected as invalid_json (docs/feed.md), and nothing is applied.
  const post = (body: Buffer | string, token = target.feedToken) =>
    fetch(`${target.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body: typeof body === "string" ? body : new Uint8Array(body),
    });
  const garbage = Buffer.concat([
    Buffer.from('{not json\n[1,2\n{"event_id":\n'),
    Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0xc0, 0xaf, 0x0a]),
    Buffer.from("'; DROP TABLE events; --\n"),
  ]);
  const malformed = await post(garbage);
  const result = (await malformed.json()) as {
    data?: { applied: number; rejected: number; results: { code?: string }[] };
  };
  if (malformed.status !== 200 || result.data?.applied !== 0 || result.data.rejected !== 6) {
    fail(`malformed NDJSON answered ${malformed.status} ${JSON.stringify(result).slice(0, 200)}`);
  } else if (!result.data.results.every((r) => r.code === "invalid_json")) {
    fail("a malformed NDJSON line was rejected with another code than invalid_json");
  }
  for (const empty of ["", "\n\n  \n"]) {
    const answer = await post(empty);
    const body = problemOf(await answer.text());
    if (answer.status !== 400 || body?.code !== "empty_batch")
      fail(`an empty batch answered ${answer.status} ${body?.code}`);
  }
  figures["malformed NDJSON"] = `${malformed.status}, ${result.data?.rejected ?? "?"} lines rejected`;

  // Wrong tokens at a high rate: every one 401.
  const statuses = new Map<number, number>();
  const started = performance.now();
  await inParallel(wrongTokens, 32, async (i) => {
    // Near misses of the token (never the token itself, which two random characters can give).
    let wrong = `${target.feedToken.slice(0, -2)}${randomBase62(2 + (i % 5))}`;
    if (wrong === target.feedToken) wrong += "x";
    const answer = await post('{"event_id":"x"}\n', wrong);
    await answer.arrayBuffer();
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status !== 401) fail(`a wrong feed token answered ${answer.status}`);
  });
  figures["wrong feed tokens"] =
    `${wrongTokens} at ${Math.round(wrongTokens / ((performance.now() - started) / 1000))}/s: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(" ")}`;
  return { findings, figures };
}

/**
 * Console members' reads with the session cookie, as a script sends them (no Sec-Fetch-Site, no
 * Origin): held to the member's per-second limit, and with the organisation's entitlement only.
 */
export async function memberReads(target: Target): Promise<CheckResult> {
  const findings: Finding[] = [];
  const fail = (problem: string) => findings.push({ check: "member reads", problem });
  const { licensed: l, unlicensed: u } = target.members;
  const licensed = (await signIn(target.baseUrl, l.email, l.password)).session;
  const unlicensed = (await signIn(target.baseUrl, u.email, u.password)).session;
  if (!licensed || !unlicensed) {
    fail("a member could not sign in");
    return { findings, figures: {} };
  }
  const read = async (session: string, path: string) => {
    const response = await fetch(`${target.baseUrl}${path}`, { headers: { cookie: session } });
    return { status: response.status, body: JSON.parse(await response.text()) as Record<string, unknown> };
  };
  const { sandboxSport } = target.members.unlicensed;
  const sandboxed = await read(unlicensed, "/api/v1/odds");
  const sports = new Set(((sandboxed.body.data ?? []) as { sport: string }[]).map((e) => e.sport));
  if (sandboxed.status !== 200 || (sandboxed.body.meta as { sandbox?: boolean } | undefined)?.sandbox !== true) {
    fail(`a member without a licence read the odds with ${sandboxed.status}, not the sandbox view`);
  }
  if ([...sports].some((sport) => sport !== sandboxSport)) {
    fail(`a member without a licence saw ${[...sports].join(", ")}, not ${sandboxSport} only`);
  }
  const other = await read(unlicensed, `/api/v1/odds?sport=${sandboxSport === "soccer" ? "tennis" : "soccer"}`);
  if (other.status !== 403) fail(`a member without a licence read another sport with ${other.status}, not 403`);

  let sent = 0;
  let refused = false;
  const started = performance.now();
  // A loop of reads: refused once the member's per-second limit is spent, well within a few seconds.
  while (!refused && performance.now() - started < 5_000) {
    const answer = await read(licensed, "/api/v1/odds");
    sent++;
    if (answer.status === 429) refused = (answer.body["violated-policies"] as string[] | undefined)?.[0] === "second";
    else if (answer.status !== 200) fail(`a member's read answered ${answer.status}`);
  }
  if (!refused) fail(`a member's loop of ${sent} reads with the session cookie was never limited`);
  return { findings, figures: { "member reads before 429": sent, "sandbox member's sports": [...sports].join(" ") } };
}

/**
 * A key pasted into a path: answered 404 as any unknown path, and kept out of the access log (the
 * suite's log check finds a key in any line).
 */
export async function keyInPath(target: Target): Promise<CheckResult> {
  const findings: Finding[] = [];
  for (const key of [target.production[0]!, target.sandbox]) {
    // Percent-encoded too: the logs decode before they mask (the log check looks for the key's random part).
    const encoded = key.replaceAll("_", "%5F");
    const paths = [`/api/v1/${key}`, `/api/v1/events/${key}`, `/api/v1/${key}/odds`, `/api/v1/events/${encoded}`];
    for (const path of paths) {
      const response = await fetch(`${target.baseUrl}${path}`, { headers: { "x-api-key": target.production[0]! } });
      await response.arrayBuffer();
      if (response.status !== 404) {
        findings.push({ check: "key in path", problem: `a key in the path answered ${response.status}, not 404` });
      }
    }
  }
  return { findings, figures: {} };
}

/**
 * Targets in the asterisk form (RFC 9110 7.1), which name no resource: `OPTIONS *` asks about the
 * server as a whole (204 with `Allow`), any other method with `*` is a bad request. Never a 500.
 */
export async function asteriskFormAbuse(target: Target): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const host: [string, string] = ["Host", new URL(target.baseUrl).host];
  const cases: [string, number][] = [
    ["OPTIONS", 204],
    ["GET", 400],
    ["HEAD", 400],
    ["POST", 400],
    ["DELETE", 400],
  ];
  for (const [method, expected] of cases) {
    const answer = await rawExchange(
      target.baseUrl,
      (s) => void s.write(requestHead(method, "*", [host, ["Connection", "close"]])),
      10_000,
    );
    figures[`${method} *`] = answer.status ?? "closed";
    if (answer.status !== expected) {
      findings.push({
        check: "request target",
        problem: `${method} * answered ${answer.status ?? "nothing"}, expected ${expected}`,
      });
    } else if (method === "OPTIONS" && !/^allow: .*GET/im.test(answer.head)) {
      findings.push({ check: "request target", problem: "OPTIONS * answered without Allow" });
    }
  }
  return { findings, figures };
}

/**
 * One request's share of the history: `/changes` without `since` is refused saying it is required;
 * after more revisions than one answer examines, a page of another sport ends at the bound (its
 * `next_since`) instead of reading them all; a board stream resumed from before them is sent a
 * fresh snapshot instead of a replay of them all.
 */
export async function changesBound(target: Target, revisions: number): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  const fail = (problem: string, detail?: string) => findings.push({ check: "changes", problem, detail });
  const key = target.production[0]!;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await fetch(`${target.baseUrl}${path}`, { headers: { "x-api-key": key, ...headers } });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  const missing = await get("/api/v1/changes?limit=10");
  figures["/changes without since"] = `${missing.status} ${String(missing.body.detail ?? "").slice(0, 80)}`;
  if (missing.status !== 400 || !/required/.test(String(missing.body.detail))) {
    fail(
      `/changes without since answered ${missing.status}, not 400 saying since is required`,
      JSON.stringify(missing.body).slice(0, 300),
    );
  }

  // A run of clock changes on one live event, then a page of another sport from before it.
  const [busy] = target.liveEventIds;
  const sportOf = (id: string) => id.split("-")[1]!;
  const other = target.liveEventIds.map(sportOf).find((sport) => sport !== sportOf(busy!));
  if (!busy || !other) throw new Error("the check needs live events of two sports");
  const before = ((await get("/api/v1/odds")).body.meta as { revision: number }).revision;
  const updates = Array.from({ length: revisions }, (_, i) => ({
    event_id: busy,
    sequence: 100_000 + i,
    event: { clock: `${Math.floor(i / 60) % 90}:${String(i % 60).padStart(2, "0")}` },
  }));
  await target.ingest(updates);
  const page = await get(`/api/v1/changes?since=${before}&sport=${other}&limit=1000`);
  const meta = page.body.meta as { next_since?: number } | undefined;
  const examined = (meta?.next_since ?? Number.NaN) - before;
  figures["revisions one /changes answer examined"] = `${examined} of ${revisions} (${page.status})`;
  if (page.status !== 200 || !(examined <= 10_000)) {
    fail(`one /changes answer examined ${examined} revisions (since=${before}, ${revisions} after it)`);
  }

  // A board stream of the other sport resumed from before the run: its first message.
  const controller = new AbortController();
  let first = "";
  try {
    const stream = await fetch(`${target.baseUrl}/api/v1/odds/stream?sport=${other}`, {
      headers: { "x-api-key": key, "last-event-id": String(before) },
      signal: controller.signal,
    });
    const reader = stream.body!.getReader();
    const deadline = Date.now() + 15_000;
    // Up to the first message with an event name (a `retry:` frame and comments come before it).
    while (!/event: .*\n(?:.*\n)*?\n/.test(first) && Date.now() < deadline) {
      const { value, done } = await Promise.race([
        reader.read(),
        sleep(Math.max(0, deadline - Date.now())).then(() => ({ value: undefined, done: true })),
      ]);
      if (done) break;
      first += new TextDecoder().decode(value);
    }
  } finally {
    controller.abort();
  }
  const resynced = /event: snapshot/.test(first) && /"resync":true/.test(first);
  figures["a stream resumed from before the run"] = resynced
    ? "fresh snapshot"
    : first.slice(0, 60) || "nothing within 15 s";
  if (!resynced) {
    fail(`a board stream resumed ${revisions} revisions back was not sent a fresh snapshot first`, first.slice(0, 300));
  }
  return { findings, figures };
}

/**
 * What the operator and the keys' owners change while the service runs (PostgreSQL: the CLI beside
 * the server): a key created after its address sent thousands of invented keys works at once; a
 * key's new IP allowlist ends its open stream from an address left out; webhook URLs on loopback
 * written as IPv6 that carries IPv4, or on another port, are refused.
 */
export async function changesWhileRunning(target: Target, operator: Operator): Promise<CheckResult> {
  const findings: Finding[] = [];
  const figures: Record<string, string | number> = {};
  // A new key, from the address that just guessed: never 429, and 200 once its creation is heard.
  const created = await operator.createKey();
  const statuses: number[] = [];
  for (let tries = 0; tries < 100 && statuses.at(-1) !== 200; tries++) {
    if (tries > 0) await sleep(25);
    const answer = await fetch(`${target.baseUrl}/api/v1/me`, { headers: { "x-api-key": created } });
    await answer.arrayBuffer();
    statuses.push(answer.status);
  }
  figures["a new key after guesses: statuses"] = statuses.join(" ");
  if (statuses.at(-1) !== 200 || statuses.includes(429)) {
    findings.push({ check: "new key after guesses", problem: `answered ${statuses.join(" ")}, not 200 at once` });
  }

  // An open stream from 127.0.0.1, then an allowlist that leaves it out: the stream ends.
  const stream = await followStream(`${target.baseUrl}/api/v1/odds/stream`, operator.allowlisted.key);
  try {
    await operator.limitKey(operator.allowlisted.id, "192.0.2.0/24");
    const ended = await stream.ended(10_000);
    figures["allowlist changed: the open stream's ending"] = ended ?? "none";
    if (ended !== "ip_not_allowed") {
      findings.push({ check: "allowlist on open streams", problem: `the stream went on (ending: ${ended ?? "none"})` });
    }
  } finally {
    stream.close();
  }

  for (const url of [
    "http://[64:ff9b::7f00:1]/hook",
    "http://[2002:7f00:1::]/hook",
    "http://[::7f00:1]/hook",
    "http://[::ffff:0:7f00:1]/hook",
    "http://93.184.216.34:22/hook",
  ]) {
    const refusal = await operator.addWebhook(url);
    if (refusal === null) findings.push({ check: "webhook addresses", problem: `${url} was added` });
    else if (/\d+\.\d+\.\d+\.\d+|::/.test(refusal.replace(url, ""))) {
      findings.push({ check: "webhook addresses", problem: `the refusal of ${url} names an address: ${refusal}` });
    }
  }
  return { findings, figures };
}

/** The operator's side of `changesWhileRunning`. */
export type Operator = {
  createKey(): Promise<string>;
  allowlisted: { id: string; key: string };
  limitKey(keyId: string, allowlist: string): Promise<void>;
  /** The refusal's message, or null when the endpoint was added. */
  addWebhook(url: string): Promise<string | null>;
};

/** A stream read until it ends: `ended` is the code of its last `error`, or null if it did not end. */
async function followStream(url: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { "x-api-key": key }, signal: controller.signal });
  let text = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        text += decoder.decode(read.value, { stream: true });
      }
    } catch {
      // aborted
    }
  })();
  return {
    async ended(withinMs: number): Promise<string | null> {
      await Promise.race([reading, sleep(withinMs)]);
      const match = /event: error\ndata: (.*)\n/.exec(text);
      return match ? ((problemOf(match[1]!)?.code as string | undefined) ?? "error") : null;
    },
    close: () => controller.abort(),
  };
}
