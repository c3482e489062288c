// The embedded database's own thread (lib/db/pglite-worker.ts starts it): one PGlite on the data
// folder, answering the statements the server's thread sends. It imports nothing of the project's,
// so Node loads it as it stands.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type QueryOptions, type Transaction } from "@electric-sql/pglite";

export type Request =
  | {
      op: "query";
      id: number;
      tx?: number;
      sql: string;
      params?: unknown[];
      rowMode?: "array" | "object";
      textTypes?: number[];
    }
  | { op: "exec"; id: number; tx?: number; sql: string }
  | { op: "begin"; id: number; tx: number }
  | { op: "end"; id: number; tx: number; commit: boolean }
  | { op: "listen"; id: number; channel: string; listener: number }
  | { op: "unlisten"; id: number; listener: number }
  | { op: "close"; id: number };

export type Reply =
  | { type: "ready" }
  | { type: "failed"; error: SentError }
  | { type: "done"; id: number; result?: unknown }
  | { type: "error"; id: number; error: SentError }
  | { type: "notify"; listener: number; payload: string };

/** An error as it crosses threads: its message and its fields (code, detail, constraint...). */
export type SentError = { message: string; name: string; fields: Record<string, unknown> };

function send(reply: Reply): void {
  parentPort!.postMessage(reply);
}

function sent(error: unknown): SentError {
  if (!(error instanceof Error)) return { message: String(error), name: "Error", fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(error)) {
    // The query's options hold the caller's parser functions, which cannot be sent.
    if (value === null || ["string", "number", "boolean", "bigint"].includes(typeof value)) fields[name] = value;
  }
  return { message: error.message, name: error.name, fields };
}

// A parser that keeps the value as Postgres sent it (text), for each type the caller asked so of.
const keepText = (value: string) => value;

function options(request: Extract<Request, { op: "query" }>): QueryOptions {
  const parsers = request.textTypes ? Object.fromEntries(request.textTypes.map((type) => [type, keepText])) : undefined;
  return { rowMode: request.rowMode, parsers };
}

type Open = { tx: Transaction; end(commit: boolean): void; ended: Promise<unknown> };

async function serve(db: PGlite): Promise<void> {
  const transactions = new Map<number, Open>();
  const unlistens = new Map<number, () => Promise<void>>();
  // A notice leaves after the answer of the statement that raised it (a commit's), as a listener on
  // another connection hears it: the instance that committed hands its revisions to its own views
  // first, and the notice then asks them to read nothing.
  let answering = 0;
  const notices: Reply[] = [];
  const sendNotices = () => {
    for (const notice of notices.splice(0)) send(notice);
  };
  const on = (tx: number | undefined): Pick<Transaction, "query" | "exec"> => {
    if (tx === undefined) return db;
    const open = transactions.get(tx);
    if (!open) throw new Error(`No open transaction ${tx}`);
    return open.tx;
  };

  const handle = async (request: Request): Promise<unknown> => {
    switch (request.op) {
      case "query":
        return on(request.tx).query(request.sql, request.params, options(request));
      case "exec":
        return on(request.tx).exec(request.sql);
      case "begin": {
        // PGlite holds every other statement until this transaction ends, as on one thread.
        const begun = Promise.withResolvers<void>();
        const decided = Promise.withResolvers<boolean>();
        const ended = db.transaction(async (tx) => {
          transactions.set(request.tx, { tx, end: decided.resolve, ended });
          begun.resolve();
          if (!(await decided.promise)) await tx.rollback();
        });
        ended.catch(begun.reject);
        await begun.promise;
        return undefined;
      }
      case "end": {
        const open = transactions.get(request.tx);
        if (!open) throw new Error(`No open transaction ${request.tx}`);
        open.end(request.commit);
        try {
          await open.ended;
        } finally {
          transactions.delete(request.tx);
        }
        return undefined;
      }
      case "listen": {
        const unlisten = await db.listen(request.channel, (payload) => {
          notices.push({ type: "notify", listener: request.listener, payload });
          if (answering === 0) sendNotices();
        });
        unlistens.set(request.listener, unlisten);
        return undefined;
      }
      case "unlisten":
        await unlistens.get(request.listener)?.();
        unlistens.delete(request.listener);
        return undefined;
      case "close":
        await db.close();
        return undefined;
    }
  };

  parentPort!.on("message", (request: Request) => {
    answering++;
    handle(request)
      .then(
        (result) => send({ type: "done", id: request.id, result }),
        (error: unknown) => send({ type: "error", id: request.id, error: sent(error) }),
      )
      .finally(() => {
        answering--;
        sendNotices();
      });
  });
}

try {
  const { dataDir, pgliteWasmModule, initdbWasmModule } = workerData as {
    dataDir: string;
    pgliteWasmModule: WebAssembly.Module;
    initdbWasmModule: WebAssembly.Module;
  };
  // Compiled once by the process that started the thread (pglite-worker.ts), shared by its threads.
  const db = await PGlite.create(dataDir, { pgliteWasmModule, initdbWasmModule });
  await serve(db);
  send({ type: "ready" });
} catch (error) {
  send({ type: "failed", error: sent(error) });
}
