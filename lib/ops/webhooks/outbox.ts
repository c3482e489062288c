import { sql, type SQL } from "drizzle-orm";
import { recordAudit, type Actor } from "../../accounts/audit.ts";
import { rowsOf, type Database } from "../../db/index.ts";
import { webhookAttempts } from "../../db/schema/index.ts";
import { FAILING_DISABLES_AFTER_MS } from "./limits.ts";
import { MAIL_ORIGIN } from "../../accounts/mail/links.ts";
import { webhookEndpointDisabledAlert } from "../../accounts/mail/notices.ts";

// The outbox's two statements of a delivery: claiming due messages fairly, and recording an
// attempt's outcome (with the endpoint's run of failures, which disables it after a day).

export type Due = {
  id: string;
  body: string;
  attempts: number;
  created_at: string | Date;
  endpoint_id: string;
  org_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | Date | null;
};

/** Who disables an endpoint that failed for a day, in the audit log. */
export const WEBHOOK_DELIVERIES: Actor = { userId: null, label: "webhook deliveries" };

const time = (at: Date) => sql`${at.toISOString()}::timestamptz`;
const notAmong = (column: SQL, values: readonly string[]) =>
  values.length === 0
    ? sql``
    : sql`and ${column} not in (${sql.join(
        values.map((value) => sql`${value}`),
        sql`, `,
      )})`;

/**
 * Up to `room` due messages, at most one per organisation and one per endpoint, leased until
 * `leaseUntil`: each enabled endpoint's oldest due message, the organisations taking turns by
 * their oldest. Endpoints and organisations this instance is busy with are left out, so one
 * organisation's stalled receiver holds its own turns only. Each claimed message's endpoint is
 * leased too, until its attempt is recorded: an endpoint another instance holds is left out, and
 * of two instances claiming one endpoint at once the second's update waits for the first's and
 * then finds it held (PostgreSQL evaluates the lease's condition again on the updated row), so
 * every instance together has one attempt open on an endpoint.
 */
export async function claimDue(
  db: Database,
  options: { at: Date; leaseUntil: Date; room: number; busyEndpoints: string[]; fullOrganisations: string[] },
): Promise<Due[]> {
  if (options.room <= 0) return [];
  return rowsOf<Due>(
    await db.execute(sql`
      with heads as (
        select e.org_id, m.id, m.next_attempt_at
        from webhook_endpoints e
        cross join lateral (
          select d.id, d.next_attempt_at from webhook_deliveries d
          where d.endpoint_id = e.id and d.state = 'pending' and d.next_attempt_at <= ${time(options.at)}
          order by d.next_attempt_at, d.id
          limit 1) m
        where e.enabled and (e.lease_until is null or e.lease_until <= ${time(options.at)})
          ${notAmong(sql`e.id`, options.busyEndpoints)} ${notAmong(sql`e.org_id`, options.fullOrganisations)}),
      turns as (
        select id, next_attempt_at,
          row_number() over (partition by org_id order by next_attempt_at, id) as turn
        from heads),
      picked as (
        select d3.id, d3.endpoint_id from webhook_deliveries d3
        where d3.id in (select id from turns where turn = 1 order by next_attempt_at, id limit ${options.room})
          and d3.state = 'pending' and d3.next_attempt_at <= ${time(options.at)}
        for update of d3 skip locked),
      leased as (
        update webhook_endpoints e set lease_until = ${time(options.leaseUntil)}
        where e.id in (select endpoint_id from picked)
          and (e.lease_until is null or e.lease_until <= ${time(options.at)})
        returning e.id, e.org_id, e.url, e.secret, e.previous_secret, e.previous_secret_until)
      update webhook_deliveries d set next_attempt_at = ${time(options.leaseUntil)}
      from leased e
      where e.id = d.endpoint_id and d.id in (select id from picked)
      returning d.id, d.body, d.attempts, d.created_at, e.id as endpoint_id, e.org_id, e.url, e.secret,
        e.previous_secret, e.previous_secret_until`),
  );
}

export type Outcome = {
  started: Date;
  finished: Date;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  /** The message's next attempt, or null when it is not tried again. */
  next: Date | null;
};

export type AutoDisabled = { orgId: string; endpointId: string; url: string; failingSince: Date; at: Date };

/**
 * Records an attempt: the log line, the message's state, and the endpoint's run of failures. An
 * endpoint whose every attempt has failed for FAILING_DISABLES_AFTER_MS is disabled in the same
 * transaction, with an audit entry; returned, so that the caller tells the organisation.
 */
export async function recordAttempt(db: Database, message: Due, outcome: Outcome): Promise<AutoDisabled | null> {
  const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  const state = delivered ? "delivered" : outcome.next === null ? "failed" : "pending";
  return db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      deliveryId: message.id,
      at: outcome.started,
      statusCode: outcome.statusCode,
      error: outcome.error,
      latencyMs: outcome.latencyMs,
    });
    await tx.execute(sql`
      update webhook_deliveries set state = ${state}, attempts = ${message.attempts + 1},
        next_attempt_at = ${outcome.next === null ? null : time(outcome.next)}
      where id = ${message.id}`);
    // The endpoint's next message may go now, from whichever instance claims it.
    await tx.execute(sql`update webhook_endpoints set lease_until = null where id = ${message.endpoint_id}`);
    if (delivered) {
      await tx.execute(sql`
        update webhook_endpoints set failing_since = null where id = ${message.endpoint_id} and failing_since is not null`);
      return null;
    }
    const cutoff = new Date(outcome.finished.getTime() - FAILING_DISABLES_AFTER_MS);
    const [failing] = rowsOf<{ failing_since: string | Date; enabled: boolean }>(
      await tx.execute(sql`
        update webhook_endpoints set failing_since = coalesce(failing_since, ${time(outcome.started)})
        where id = ${message.endpoint_id}
        returning failing_since, enabled`),
    );
    if (!failing?.enabled || new Date(failing.failing_since) > cutoff) return null;
    const [disabled] = rowsOf<{ url: string }>(
      await tx.execute(sql`
        update webhook_endpoints set enabled = false, auto_disabled_at = ${time(outcome.finished)}
        where id = ${message.endpoint_id} and enabled
        returning url`),
    );
    if (!disabled) return null;
    const failingSince = new Date(failing.failing_since);
    await recordAudit(tx, {
      orgId: message.org_id,
      actor: WEBHOOK_DELIVERIES,
      action: "webhook.auto_disabled",
      target: message.endpoint_id,
      details: { url: disabled.url, failing_since: failingSince.toISOString() },
    });
    // The admins' mail, queued with the change it tells of.
    await webhookEndpointDisabledAlert(
      tx,
      { orgId: message.org_id, url: disabled.url },
      { at: outcome.finished, origin: MAIL_ORIGIN },
    );
    return {
      orgId: message.org_id,
      endpointId: message.endpoint_id,
      url: disabled.url,
      failingSince,
      at: outcome.finished,
    };
  });
}
