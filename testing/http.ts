import { request } from "node:http";

// A request through node:http rather than fetch: it may leave from a chosen loopback address
// (127.0.0.2, …), which the server sees as another client, and it never follows a redirect.

export type Sent = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; from?: string } = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.headers, localAddress: options.from },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(30_000, () => req.destroy(new Error("no answer within 30 s")));
    req.end(options.body);
  });
}
