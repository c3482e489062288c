import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isPrivateAddress, NOT_PUBLIC } from "./addresses.ts";

// One delivery attempt: a POST whose answer is read for its status only. Unless private addresses
// are allowed, the connection's own name lookup refuses them, so the address connected to is the
// address checked: a name that resolves to a public address when the URL is checked and to the
// server's own network a moment later (DNS rebinding) still cannot reach it. An IP literal is not
// looked up; `refusedUrl` judges it before.

type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const resolveAll: Resolve = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A name lookup for sockets that fails with EPRIVATE when the name resolves to any private address. */
export function guardedLookup(resolve: Resolve = resolveAll): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: (...args: never[]) => void) => {
    const done = callback as (
      error: NodeJS.ErrnoException | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return done(error);
      const inside = addresses.find((a) => isPrivateAddress(a.address));
      if (inside || addresses.length === 0) {
        const refused: NodeJS.ErrnoException = new Error(
          // Without the address: the delivery log is read by the organisation, not the network's owner.
          `${hostname} ${NOT_PUBLIC}`,
        );
        refused.code = "EPRIVATE";
        return done(refused);
      }
      if (options.all) done(null, addresses);
      else done(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export type PostOptions = {
  allowPrivate: boolean;
  signal: AbortSignal;
  /** For tests: what names resolve to. */
  resolve?: Resolve;
};

/** Posts `body` to `url` with `headers`; resolves with the answer's status, rejects when there is none. */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: options.allowPrivate ? undefined : guardedLookup(options.resolve),
        signal: options.signal,
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
