// What every test file checks of the servers it started, once it is done (log-check.ts, a vitest
// setup file; the abuse suite reads the same findings): their logs are JSON lines without terminal
// colour codes, every access line carries its request id, and no secret appears in any line. The
// harness records the secrets itself wherever it makes or sends one (keys, passwords, session
// cookies, the feed and metrics tokens), so that no suite can forget one.

/** The output of every server started in this test file. */
const outputs: (() => string)[] = [];
const secrets = new Set<string>();

export function recordServerOutput(output: () => string): void {
  outputs.push(output);
}

/** A value that must never be logged. */
export function recordSecret(value: string | null | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

/** A browser stream token in a URL's query: short-lived, and still never to be logged whole. */
export function recordQueryCredentials(url: string): void {
  recordSecret(new URL(url, "http://localhost").searchParams.get("token"));
}

/** The credentials among request headers: an API key, a bearer token, a session cookie. */
export function recordCredentials(headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) {
    const header = name.toLowerCase();
    if (header === "x-api-key") recordSecret(value);
    else if (header === "authorization") recordSecret(value.replace(/^Bearer\s+/i, ""));
    else if (header === "cookie") {
      for (const pair of value.split(";"))
        if (/^\s*next-auth\.session-token=/.test(pair)) recordSecret(pair.split("=")[1]);
    }
  }
}

// Every line is a log line: a test's server never has a terminal, so even its first start's
// one-time sign-ins are not printed but written to a file of their own (testing/console.ts).
const ESCAPE = "\u001b";

export type LogFinding = { line: string; problem: string };

/** What is wrong with the logs so far: lines that are not JSON, access lines without an id, secrets. */
export function logFindings(): LogFinding[] {
  const findings: LogFinding[] = [];
  for (const output of outputs) {
    for (const line of output().split("\n")) {
      if (line.trim() === "") continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        findings.push({ line, problem: "not a JSON line" });
        continue;
      }
      if (entry.msg === "request" && !/^req_[0-9a-f]{32}$/.test(String(entry.request_id))) {
        findings.push({ line, problem: "an access line without its request id" });
      }
      if (line.includes(ESCAPE) || String(entry.msg).includes(ESCAPE)) {
        findings.push({ line, problem: "holds a terminal colour code" });
      }
      for (const secret of secrets) {
        // A key's random part alone counts too: the key may have been sent percent-encoded.
        const found = line.includes(secret) || line.includes(randomPart(secret) ?? secret);
        if (found) findings.push({ line, problem: `holds a secret (${secret.slice(0, 6)}…)` });
      }
    }
  }
  return findings;
}

/** The part of one of our keys, tokens or webhook secrets after its prefix, or null. */
export function randomPart(secret: string): string | null {
  return /^(?:svc_s[bkt]_|whsec_)(.{8,})$/.exec(secret)?.[1] ?? null;
}

/** Forgets this file's servers and secrets (after the check). */
export function resetLogChecks(): void {
  outputs.length = 0;
  secrets.clear();
}
