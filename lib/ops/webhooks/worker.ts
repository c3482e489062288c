import { Poller } from "../../poller.ts";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../../db/index.ts";
import { logger } from "../../log/index.ts";
import { refusedUrl } from "./addresses.ts";
import type { UsageAlerts } from "./alerts.ts";
import { queueEvent } from "./events.ts";
import { ATTEMPTS_IN_FLIGHT, ATTEMPTS_IN_FLIGHT_PER_ORGANISATION } from "./limits.ts";
import { raiseEndpointDisabledNotice } from "./notices.ts";
import { claimDue, recordAttempt, type Due } from "./outbox.ts";
import { post } from "./post.ts";
import { nextAttemptAt } from "./schedule.ts";
import { signedHeaders } from "./signature.ts";

export type WebhookSettings = {
  allowPrivate: boolean;
  /** The first wait before a failed message is tried again; it doubles with each attempt. */
  retryBaseMs: number;
  /** How long a receiver has to answer. */
  timeoutMs?: number;
};

const DEFAULT_TIMEOUT_MS = 10_000;
// A queued message wakes every worker (the bus's `outbox_queued`), an attempt's end and a retry's
// time wake this one; the idle look finds the rest, such as an endpoint another instance held.
const IDLE_MS = 10_000;
const EXPIRY_SCAN_MS = 60_000;
// With the idle look's wait, other instances' changes are read within half a minute.
const THRESHOLDS_RELOAD_MS = 20_000;
const EXPIRY_NOTICE_MS = 7 * 86_400_000;
/** How long the log keeps a message that is no longer tried, with its attempts. */
export const LOG_RETENTION_MS = 30 * 86_400_000;

/**
 * Records usage alerts off the request path, announces keys expiring within 7 days, and posts the
 * outbox's due messages. Any number of instances run one each: a message is claimed with
 * `for update skip locked` and a lease (its next attempt moved past the answer's timeout), so one
 * instance posts it. Attempts run side by side, at most ATTEMPTS_IN_FLIGHT and
 * ATTEMPTS_IN_FLIGHT_PER_ORGANISATION per organisation, one per endpoint across every instance (the
 * endpoint's lease, outbox.ts), and each finished one frees its place at once: a receiver that
 * never answers holds its own endpoint's turn, never another's.
 */
export class WebhookWorker {
  private readonly db: Database;
  private readonly alerts: UsageAlerts;
  private readonly settings: Required<WebhookSettings>;
  private readonly now: () => Date;
  private readonly poller = new Poller(
    () => this.tick(),
    () => IDLE_MS,
  );
  private lastExpiryScan = 0;
  private lastThresholdsLoad = 0;
  private readonly aborts = new AbortController();
  /** The attempts open now, by endpoint. */
  private readonly inFlight = new Map<string, { orgId: string; done: Promise<void> }>();

  constructor(db: Database, alerts: UsageAlerts, settings: WebhookSettings, now: () => Date) {
    this.db = db;
    this.alerts = alerts;
    this.settings = { timeoutMs: DEFAULT_TIMEOUT_MS, ...settings };
    this.now = now;
    // Told on the request path: the recording waits for the request to be answered.
    alerts.onReached = () => setImmediate(() => this.wake());
  }

  start(): void {
    this.lastThresholdsLoad = Date.now();
    this.wake();
  }

  /** Looks at the outbox now (something was queued). */
  wake(): void {
    this.poller.wake();
  }

  async stop(): Promise<void> {
    const stopping = this.poller.stop();
    this.aborts.abort();
    await stopping;
    await Promise.all([...this.inFlight.values()].map((attempt) => attempt.done));
    // What was reached and not recorded yet: the next instance would find it again only at the
    // key's next request.
    await this.alerts.record().catch((error: unknown) => logger().warn({ err: error }, "Usage alerts not recorded"));
  }

  private async tick(): Promise<void> {
    try {
      if (this.alerts.queued > 0) await this.alerts.record();
      const wall = Date.now();
      if (wall - this.lastThresholdsLoad >= THRESHOLDS_RELOAD_MS) {
        this.lastThresholdsLoad = wall;
        await this.alerts.load();
      }
      if (wall - this.lastExpiryScan >= EXPIRY_SCAN_MS) {
        this.lastExpiryScan = wall;
        await this.noticeExpiringKeys();
        await this.pruneLog();
      }
      await this.dispatch();
    } catch (error) {
      if (!this.poller.stopped) logger().error({ err: error }, "Webhook deliveries failed");
    }
  }

  /** Queues `key.expiring` once per key and expiry, 7 days before it. */
  async noticeExpiringKeys(): Promise<number> {
    const at = this.now();
    return this.db.transaction(async (tx) => {
      const noticed = rowsOf<{
        key_id: string;
        expires_at: string | Date;
        org_id: string;
        hint: string;
        name: string | null;
        environment: string;
      }>(
        await tx.execute(sql`
          with noticed as (
            insert into key_expiry_notices (key_id, expires_at, noticed_at)
            select id, expires_at, ${time(at)} from api_keys
            where revoked_at is null and expires_at > ${time(at)} and expires_at <= ${time(new Date(at.getTime() + EXPIRY_NOTICE_MS))}
            on conflict do nothing
            returning key_id, expires_at)
          select n.key_id, n.expires_at, k.org_id, k.hint, k.name, k.environment
          from noticed n join api_keys k on k.id = n.key_id`),
      );
      for (const key of noticed) {
        await queueEvent(tx, {
          orgId: key.org_id,
          type: "key.expiring",
          at,
          data: {
            key_id: key.key_id,
            key_hint: key.hint,
            key_name: key.name,
            environment: key.environment,
            expires_at: new Date(key.expires_at).toISOString(),
          },
        });
      }
      return noticed.length;
    });
  }

  /** Forgets messages no longer tried that are older than the log keeps (their attempts go with them). */
  async pruneLog(): Promise<void> {
    const before = new Date(this.now().getTime() - LOG_RETENTION_MS);
    await this.db.execute(sql`
      delete from webhook_deliveries where state <> 'pending' and created_at < ${time(before)}`);
  }

  /** Claims due messages while there is room, one organisation's turn after another's, and starts them. */
  private async dispatch(): Promise<void> {
    for (;;) {
      const room = ATTEMPTS_IN_FLIGHT - this.inFlight.size;
      if (this.poller.stopped || room <= 0) return;
      const perOrganisation = new Map<string, number>();
      for (const { orgId } of this.inFlight.values()) perOrganisation.set(orgId, (perOrganisation.get(orgId) ?? 0) + 1);
      const at = this.now();
      const due = await claimDue(this.db, {
        at,
        leaseUntil: new Date(at.getTime() + this.settings.timeoutMs + 5_000),
        room,
        busyEndpoints: [...this.inFlight.keys()],
        fullOrganisations: [...perOrganisation]
          .filter(([, open]) => open >= ATTEMPTS_IN_FLIGHT_PER_ORGANISATION)
          .map(([orgId]) => orgId),
      });
      if (due.length === 0) return;
      for (const message of due) this.begin(message);
    }
  }

  /** Starts an attempt; its end frees its place and looks at the outbox again. */
  private begin(message: Due): void {
    const done = this.deliver(message)
      .catch((error: unknown) => {
        if (!this.poller.stopped) logger().error({ err: error }, "Webhook delivery failed");
      })
      .finally(() => {
        this.inFlight.delete(message.endpoint_id);
        this.wake();
      });
    this.inFlight.set(message.endpoint_id, { orgId: message.org_id, done });
  }

  private async deliver(message: Due): Promise<void> {
    const started = this.now();
    const clock = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      // Checked again before each attempt: a name may resolve elsewhere since the endpoint was added.
      const refused = await refusedUrl(message.url, this.settings.allowPrivate);
      if (refused) {
        error = `The URL ${refused}`;
      } else {
        const overlapping =
          message.previous_secret !== null &&
          message.previous_secret_until !== null &&
          new Date(message.previous_secret_until) > started;
        const secrets = overlapping ? [message.secret, message.previous_secret!] : [message.secret];
        // Redirects are not followed: a receiver's answer is its status, wherever it points.
        statusCode = await post(message.url, signedHeaders(secrets, message.id, started, message.body), message.body, {
          allowPrivate: this.settings.allowPrivate,
          signal: AbortSignal.any([this.aborts.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
        });
      }
    } catch (failure) {
      // Stopping: the lease runs out, and another instance (or this one, started again) posts it.
      if (this.poller.stopped) return;
      error = failure instanceof Error ? causeOf(failure) : String(failure);
    }
    const latencyMs = Math.round(performance.now() - clock);
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const finished = this.now();
    const next = delivered
      ? null
      : nextAttemptAt(
          message.attempts + 1,
          new Date(message.created_at).getTime(),
          finished.getTime(),
          this.settings.retryBaseMs,
        );
    const disabled = await recordAttempt(this.db, message, {
      started,
      finished,
      statusCode,
      error,
      latencyMs,
      next: next === null ? null : new Date(next),
    });
    if (disabled) raiseEndpointDisabledNotice(disabled);
    else if (next !== null) this.poller.lookIn(next - finished.getTime());
  }
}

const time = (at: Date) => sql`${at.toISOString()}::timestamptz`;

/** Why an attempt got no answer, in a word where there is one (ECONNREFUSED, EPRIVATE). */
function causeOf(error: Error): string {
  const cause = (error as { cause?: { name?: string } }).cause;
  if (error.name === "TimeoutError" || cause?.name === "TimeoutError") return "No answer within the timeout";
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EPRIVATE" ? error.message : (code ?? error.message);
}
