import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../db/index.ts";
import type { Environment, LicenceState, LicenceVerification, Sport } from "../db/schema/index.ts";
import { organisationPrincipal } from "../metering/principals.ts";
import { AllowList } from "./allowlist.ts";

/** The plan whose limits every sandbox key has. */
export const SANDBOX_PLAN = "sandbox";

/** What a request needs to know about the key that sent it: identity, coverage and limits. */
export type ApiKeyRecord = {
  id: string;
  orgId: string;
  environment: Environment;
  /** The plan's code for a production key; null for a sandbox key (the spec's `plan`). */
  planCode: string | null;
  /** What the key covers: its plan's sports, narrowed to the key's scope when it has one. */
  sports: Sport[];
  /** The production key's name; absent for other credentials. */
  name?: string | null;
  /**
   * The minute the key was last used, as recorded when this record was read (the meter writes it
   * within a flush of a use); absent for other credentials.
   */
  lastUsedAt?: Date | null;
  /** The production key's own sport scope (null: its plan's); absent for other credentials. */
  sportScope?: Sport[] | null;
  /** The networks a production key may be used from, ready to match; null or absent: any address. */
  allowList?: AllowList | null;
  monthlyQuota: number;
  requestsPerSecond: number;
  concurrentStreams: number;
  /**
   * A production key's own lower limits as set (null: its plan's), which `monthlyQuota` and
   * `requestsPerSecond` above already apply; absent for other credentials.
   */
  ownLimits?: OwnLimits;
  /**
   * The organisation's limits, its plan's, which its production keys and its members' reads share
   * (each also within its own limits above); null or absent: none (a sandbox key).
   */
  pool?: LimitPool | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /**
   * A production key's organisation's licence as it was read (null: none), judged on every request
   * so that a lapse takes effect at midnight without a change; absent for other credentials.
   */
  licence?: LicenceState | null;
};

/** A production key's own lower limits inside its organisation's pool; null: its plan's. */
export type OwnLimits = { monthlyQuota: number | null; requestsPerSecond: number | null };

/** Limits held by an organisation as a whole, counted under its principal (`org:<id>`). */
export type LimitPool = { id: string; monthlyQuota: number; requestsPerSecond: number; concurrentStreams: number };

type Row = {
  id: string;
  org_id: string;
  environment: Environment;
  sport: Sport | null;
  name: string | null;
  key_sports: Sport[] | null;
  allowed_ips: string[] | null;
  own_monthly_quota: number | null;
  own_requests_per_second: number | null;
  last_used_at: string | Date | null;
  plan_code: string | null;
  plan_sports: Sport[] | null;
  monthly_quota: number | null;
  requests_per_second: number | null;
  concurrent_streams: number | null;
  created_at: string | Date;
  expires_at: string | Date | null;
  revoked_at: string | Date | null;
  licence_reference: string | null;
  licence_verification: LicenceVerification | null;
  licence_valid_from: string | null;
  licence_valid_until: string | null;
  licence_reviewed_at: string | Date | null;
  licence_updated_at: string | Date | null;
};

const lower = (plan: number, own: number | null) => (own === null ? plan : Math.min(plan, Number(own)));

const date = (value: string | Date | null) => (value === null ? null : new Date(value));

/**
 * The key with this SHA-256, with the limits of its plan: the sandbox plan for a sandbox key, the
 * organisation's plan for a production key. One indexed read (api_keys_key_hash_key).
 */
export async function findKeyByHash(db: Database, keyHash: string): Promise<ApiKeyRecord | null> {
  const [row] = rowsOf<Row>(
    await db.execute(sql`
      select k.id, k.org_id, k.environment, k.sport, k.name, k.sports as key_sports, k.allowed_ips,
             k.monthly_quota as own_monthly_quota, k.requests_per_second as own_requests_per_second, k.last_used_at, p.code as plan_code, p.sports as plan_sports,
             p.monthly_quota, p.requests_per_second, p.concurrent_streams,
             k.created_at, k.expires_at, k.revoked_at,
             l.reference as licence_reference, l.verification as licence_verification,
             to_char(l.valid_from, 'YYYY-MM-DD') as licence_valid_from,
             to_char(l.valid_until, 'YYYY-MM-DD') as licence_valid_until,
             l.reviewed_at as licence_reviewed_at, l.updated_at as licence_updated_at
      from api_keys k
      join organisations o on o.id = k.org_id
      left join licences l on l.org_id = k.org_id
      left join plans p on p.code = case when k.environment = 'sandbox' then ${SANDBOX_PLAN} else o.plan_code end
      where k.key_hash = ${keyHash}`),
  );
  if (!row) return null;
  const sandbox = row.environment === "sandbox";
  return {
    id: row.id,
    orgId: row.org_id,
    environment: row.environment,
    planCode: sandbox ? null : row.plan_code,
    sports: sandbox ? [row.sport!] : coveredBy(row.plan_sports ?? [], row.key_sports),
    ...(sandbox
      ? {}
      : {
          name: row.name,
          sportScope: row.key_sports,
          allowList: row.allowed_ips === null ? null : new AllowList(row.allowed_ips),
          ownLimits: { monthlyQuota: row.own_monthly_quota, requestsPerSecond: row.own_requests_per_second },
        }),
    // A production key outlives nothing: its organisation always has a plan (keys need one to be
    // created, and a plan can be changed but not removed). Zero limits would refuse every request.
    // A key's own limit only ever lowers its plan's (a plan lowered below it binds instead).
    monthlyQuota: lower(row.monthly_quota ?? 0, row.own_monthly_quota),
    requestsPerSecond: lower(row.requests_per_second ?? 0, row.own_requests_per_second),
    concurrentStreams: row.concurrent_streams ?? 0,
    // The plan's limits are the organisation's: every production key draws on the same ones.
    pool: sandbox
      ? null
      : {
          id: organisationPrincipal(row.org_id),
          monthlyQuota: row.monthly_quota ?? 0,
          requestsPerSecond: row.requests_per_second ?? 0,
          concurrentStreams: row.concurrent_streams ?? 0,
        },
    createdAt: new Date(row.created_at),
    expiresAt: date(row.expires_at),
    revokedAt: date(row.revoked_at),
    lastUsedAt: date(row.last_used_at),
    ...(sandbox ? {} : { licence: licenceOf(row) }),
  };
}

/**
 * A production key's sports: its plan's, narrowed to its scope. Intersected on every read, so a
 * plan that drops a sport drops it from every scope too (and a scope never widens a plan).
 */
export function coveredBy(planSports: readonly Sport[], scope: readonly Sport[] | null): Sport[] {
  return scope === null ? [...planSports] : planSports.filter((sport) => scope.includes(sport));
}

function licenceOf(row: Row): LicenceState | null {
  if (row.licence_reference === null) return null;
  return {
    reference: row.licence_reference,
    verification: row.licence_verification!,
    validFrom: row.licence_valid_from!,
    validUntil: row.licence_valid_until!,
    reviewedAt: date(row.licence_reviewed_at),
    updatedAt: new Date(row.licence_updated_at!),
  };
}

/** The SHA-256 of the key with this id (a stream token names its key by id); null when none. */
export async function findKeyHashById(db: Database, keyId: string): Promise<string | null> {
  const [row] = rowsOf<{ key_hash: string }>(await db.execute(sql`select key_hash from api_keys where id = ${keyId}`));
  return row?.key_hash ?? null;
}
