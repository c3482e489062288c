import { createPrivateKey, generateKeyPairSync, sign, type JsonWebKey } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

// A real OpenID Connect provider for the single sign-on tests (the `oidc-provider` package), on a
// free port of 127.0.0.1, behind a small proxy of the test's own that is the provider's public
// address: a test may tell it to change the ID token the token endpoint answers (another nonce,
// an expiry passed, a signature by a key the provider never published), each re-signed so that
// only the one thing is wrong. Its development log-in pages take any login: the login names the
// account, which is the e-mail address (`unverified:` before it says the provider has not
// confirmed it).

export type Tamper = "nonce" | "expired" | "foreign-key" | null;

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The next ID tokens are changed so, until set back to null. */
  tamper(mode: Tamper): void;
  close(): Promise<void>;
};

const KID = "test-signing-key";

function rsaJwk(): JsonWebKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), kid: KID, alg: "RS256", use: "sig" };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Signs a JWT's claims with RS256 under the key, with the provider's key id. */
function signJwt(claims: Record<string, unknown>, jwk: JsonWebKey): string {
  const head = `${b64({ alg: "RS256", typ: "JWT", kid: KID })}.${b64(claims)}`;
  const key = createPrivateKey({ key: jwk, format: "jwk" });
  return `${head}.${sign("sha256", Buffer.from(head), key).toString("base64url")}`;
}

function changed(idToken: string, mode: Exclude<Tamper, null>, jwk: JsonWebKey, foreign: JsonWebKey): string {
  const claims = JSON.parse(Buffer.from(idToken.split(".")[1]!, "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
  const seconds = Math.floor(Date.now() / 1000);
  if (mode === "nonce") return signJwt({ ...claims, nonce: "a-nonce-of-another-sign-in" }, jwk);
  if (mode === "expired") return signJwt({ ...claims, iat: seconds - 7200, exp: seconds - 3600 }, jwk);
  return signJwt(claims, foreign);
}

function body(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );

/** Starts a provider that knows one client, whose redirect URI is `redirectUri`. */
export async function startProvider(redirectUri: string): Promise<TestProvider> {
  const jwk = rsaJwk();
  const foreign = rsaJwk();
  const clientId = "sports-data-console";
  const clientSecret = "the provider's client secret for the console";
  let mode: Tamper = null;
  let inner = 0;

  // The proxy is the issuer: every request goes on to the provider with its Host unchanged.
  const proxy = createServer(async (req, res) => {
    const sent = await body(req);
    const upstream = httpRequest(
      { host: "127.0.0.1", port: inner, method: req.method, path: req.url, headers: req.headers },
      async (answer) => {
        let payload = await body(answer);
        const headers = { ...answer.headers };
        if (mode && req.url === "/token" && answer.statusCode === 200) {
          const tokens = JSON.parse(payload.toString("utf8")) as { id_token?: string };
          if (tokens.id_token) tokens.id_token = changed(tokens.id_token, mode, jwk, foreign);
          payload = Buffer.from(JSON.stringify(tokens));
          headers["content-length"] = String(payload.length);
        }
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(payload);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    upstream.end(sent);
  });
  const issuer = `http://127.0.0.1:${await listen(proxy)}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ["the test provider's cookie key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: true } },
    // Lifetimes of its own artifacts (given, so that it does not warn of its defaults).
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    async findAccount(_ctx, id) {
      const email = id.replace(/^unverified:/, "");
      return {
        accountId: id,
        claims: async () => ({ sub: id, email, email_verified: !id.startsWith("unverified:"), name: "Provider User" }),
      };
    },
  });
  const providerServer = createServer(provider.callback());
  inner = await listen(providerServer);

  return {
    issuer,
    clientId,
    clientSecret,
    tamper(next) {
      mode = next;
    },
    async close() {
      await Promise.all(
        [proxy, providerServer].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/**
 * A browser's cookies, by host and port (stricter than a browser, which shares them across ports;
 * the provider and the server both live on 127.0.0.1) and path.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const path = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]).find(Boolean) ?? "/";
      const gone = attributes.some((a) => /^\s*max-age=0$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      const key = `${url.host} ${path} ${name}`;
      if (gone || value === "") this.cookies.delete(key);
      else this.cookies.set(key, { value, path });
    }
  }

  header(url: URL): string {
    return [...this.cookies.entries()]
      .filter(([key, { path }]) => key.startsWith(`${url.host} `) && url.pathname.startsWith(path))
      .map(([key, { value }]) => `${key.split(" ")[2]}=${value}`)
      .join("; ");
  }

  /** The value of a cookie for the URL, or null. */
  get(url: URL, name: string): string | null {
    const pair = this.header(url)
      .split("; ")
      .find((p) => p.startsWith(`${name}=`));
    return pair ? pair.slice(name.length + 1) : null;
  }

  /** A request with this jar's cookies, redirects not followed; the answer's cookies are kept. */
  async fetch(href: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(href);
    const cookie = this.header(url);
    const headers = new Headers(init.headers);
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.store(url, response);
    return response;
  }
}

/**
 * Walks the provider's pages as a person would: follows its redirects, logs in as `login` on its
 * log-in page and consents, and stops at the redirect back to `stopAt` (the console's callback),
 * which it answers without opening it.
 */
export async function throughProvider(jar: CookieJar, start: string, login: string, stopAt: string): Promise<URL> {
  let next = start;
  for (let step = 0; step < 20; step += 1) {
    if (next.startsWith(stopAt)) return new URL(next);
    const answer = await jar.fetch(next);
    if (answer.status >= 300 && answer.status < 400) {
      next = new URL(answer.headers.get("location")!, next).href;
      continue;
    }
    const page = await answer.text();
    const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (answer.status !== 200 || !prompt || !action) {
      throw new Error(`the provider answered ${answer.status} at ${next}: ${page.slice(0, 300)}`);
    }
    const fields: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt };
    const posted = await jar.fetch(new URL(action, next).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    if (posted.status < 300 || posted.status >= 400) throw new Error(`the provider answered ${posted.status}`);
    next = new URL(posted.headers.get("location")!, next).href;
  }
  throw new Error("the provider never sent the browser back");
}
