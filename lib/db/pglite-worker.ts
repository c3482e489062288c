import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { QueryOptions, Results } from "@electric-sql/pglite";
import type { Reply, Request, SentError } from "./pglite-thread.ts";

// A request before it is numbered: Omit over each member of the union, not over the union.
type Unnumbered = Request extends infer R ? (R extends Request ? Omit<R, "id"> : never) : never;

/** What the service asks of PGlite: drizzle's statements and transactions, LISTEN, closing. */
export type PgliteStatements = {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
};
export type PgliteClient = PgliteStatements & {
  transaction<T>(work: (tx: PgliteStatements) => Promise<T>): Promise<T>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
};

// Long enough for the last transaction of a stopping server (a meter flush, a request-log write).
const CLOSE_WITHIN_MS = 10_000;

// Looked up when opened, not at import: Next's bundle holds a copy of this module that never opens
// the database, and no bundler should take the thread's file for one of its own.
const threadFile = () => path.join(import.meta.dirname, "pglite-thread.ts");

/** PGlite's WebAssembly, compiled once for every database the process opens, on whichever thread. */
export type CompiledPglite = { pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module };

// Compiled once a process: each thread compiling PGlite's 9 MB of WebAssembly again made opening
// a database on a thread about a second slower, in CPU, than on the calling thread.
let compiling: Promise<CompiledPglite> | null = null;
export function compiledPglite(): Promise<CompiledPglite> {
  compiling ??= (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    const compile = async (file: string) => WebAssembly.compile(await readFile(path.join(dist, file)));
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([compile("pglite.wasm"), compile("initdb.wasm")]);
    return { pgliteWasmModule, initdbWasmModule };
  })().catch((error: unknown) => {
    // A failed read (a package reinstalled under a running server) is tried again by the next open.
    compiling = null;
    throw error;
  });
  return compiling;
}

function received(error: SentError): Error {
  // A plain Error with the database's fields (code, constraint...): callers read `code`, and the
  // stack is this thread's, where the statement was sent from.
  return Object.assign(new Error(error.message), error.fields, { name: error.name });
}

/**
 * drizzle's PGlite session passes parsers that keep some types' values as text (dates, intervals,
 * numeric arrays); functions cannot cross to the thread, so the types travel and the thread keeps
 * them as text. A parser that does anything else is refused rather than silently dropped.
 */
function textTypes(options: QueryOptions | undefined): number[] | undefined {
  if (options?.serializers || options?.blob || options?.onNotice || options?.paramTypes) {
    throw new Error("The PGlite thread takes rowMode and text-keeping parsers only");
  }
  if (!options?.parsers) return undefined;
  return Object.entries(options.parsers).map(([type, parser]) => {
    if (parser("0", Number(type)) !== "0")
      throw new Error(`The parser of type ${type} cannot cross to the PGlite thread`);
    return Number(type);
  });
}

/**
 * PGlite on a thread of its own: a statement takes the server's thread only to be sent and
 * answered, where PGlite on that thread held it for as long as the statement ran. PGlite there
 * still runs one statement at a time and holds every other statement while a transaction is
 * open, so a transaction here sees no statement of anyone else's between its own.
 */
export class PgliteWorker implements PgliteClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #listeners = new Map<number, (payload: string) => void>();
  #next = 1;
  #failure: Error | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  /** Starts the thread and opens the data folder there. */
  static async open(dataDir: string): Promise<PgliteWorker> {
    const worker = new Worker(threadFile(), { workerData: { dataDir, ...(await compiledPglite()) } });
    const client = new PgliteWorker(worker);
    await new Promise<void>((resolve, reject) => {
      worker.once("message", (reply: Reply) => {
        if (reply.type === "ready") resolve();
        else if (reply.type === "failed") reject(received(reply.error));
      });
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`The PGlite thread ended (code ${code}) before it was ready`)));
    });
    worker.on("message", (reply: Reply) => client.#receive(reply));
    worker.on("error", (error) => client.#fail(error));
    worker.on("exit", (code) => client.#fail(new Error(`The PGlite thread ended (code ${code})`)));
    // The thread keeps the process alive only while a statement is on its way, as PGlite on the
    // calling thread held nothing open: a script that forgets close() still ends.
    worker.unref();
    return client;
  }

  #receive(reply: Reply): void {
    if (reply.type === "notify") {
      this.#listeners.get(reply.listener)?.(reply.payload);
      return;
    }
    if (reply.type !== "done" && reply.type !== "error") return;
    const pending = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.type === "done") pending?.resolve(reply.result);
    else pending?.reject(received(reply.error));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #call<T>(request: Unnumbered): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #statements(tx?: number): PgliteStatements {
    return {
      query: async (sql, params, options) =>
        this.#call({ op: "query", tx, sql, params, rowMode: options?.rowMode, textTypes: textTypes(options) }),
      exec: (sql) => this.#call({ op: "exec", tx, sql }),
    };
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#statements().query(sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return this.#statements().exec(sql);
  }

  async transaction<T>(work: (tx: PgliteStatements) => Promise<T>): Promise<T> {
    const tx = this.#next++;
    await this.#call({ op: "begin", tx });
    let result: T;
    try {
      result = await work(this.#statements(tx));
    } catch (error) {
      await this.#call({ op: "end", tx, commit: false }).catch(() => {});
      throw error;
    }
    await this.#call({ op: "end", tx, commit: true });
    return result;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = this.#next++;
    this.#listeners.set(listener, onPayload);
    await this.#call({ op: "listen", channel, listener });
    return async () => {
      this.#listeners.delete(listener);
      await this.#call({ op: "unlisten", listener });
    };
  }

  /**
   * Closes PGlite on the thread, then ends the thread. PGlite closes only once every transaction
   * has ended: one whose caller never ends it would hold a stopping server for ever, so after
   * `withinMs` the thread is ended as a crash would end it (the next start recovers the folder
   * from its log, as after a kill) and the close fails, saying so.
   */
  async close(withinMs = CLOSE_WITHIN_MS): Promise<void> {
    if (this.#failure) return;
    let late: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      this.#call({ op: "close" }).then(() => true),
      new Promise<false>((resolve) => (late = setTimeout(() => resolve(false), withinMs))),
    ]).finally(() => clearTimeout(late));
    await this.#worker.terminate();
    if (!closed) {
      throw new Error(
        `The embedded database did not close within ${withinMs / 1000} s (a transaction still open): its thread was ended`,
      );
    }
  }
}
