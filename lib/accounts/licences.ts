import "#server-only";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { licenceAlert } from "./mail/alerts.ts";
import { recordAudit, type Actor, type AuditAction } from "./audit.ts";
import { utcDay } from "../clock.ts";
import type { Database } from "../db/index.ts";
import { licences, organisations, type LicenceState, type LicenceVerification } from "../db/schema/index.ts";
import { DomainError } from "../errors.ts";
import { newId } from "../ids.ts";
import { notifyKeyChange } from "../keys/cache.ts";

export type Licence = typeof licences.$inferSelect;
export type LicenceStatus = "missing" | "pending" | "rejected" | "revoked" | "not_yet_valid" | "lapsed" | "valid";

const day = z.iso.date({ message: "Use a date in the form YYYY-MM-DD" });

export const licenceInput = z
  .object({
    reference: z.string().trim().min(1, "Reference is required").max(120),
    authority: z.string().trim().min(1, "Issuing authority is required").max(200),
    holder: z.string().trim().min(1, "Holder's legal name is required").max(200),
    territory: z.string().trim().max(120).optional(),
    validFrom: day.optional(),
    validUntil: day,
  })
  .refine((l) => !l.validFrom || l.validFrom <= l.validUntil, {
    message: "Valid until must not be before valid from",
    path: ["validUntil"],
  });

export const reviewReason = z.string().trim().min(1, "Give a reason").max(500);

export function getLicence(db: Database, orgId: string): Promise<Licence | undefined> {
  return db
    .select()
    .from(licences)
    .where(eq(licences.orgId, orgId))
    .then((rows) => rows[0]);
}

/**
 * Only an operator's verification makes a record count; then validity is judged by whole UTC
 * days: a licence valid until 2027-03-31 covers all of that day.
 */
export function licenceStatus(licence: LicenceState | null | undefined, at: Date): LicenceStatus {
  if (!licence) return "missing";
  if (licence.verification !== "verified") return licence.verification;
  const today = utcDay(at);
  if (today < licence.validFrom) return "not_yet_valid";
  if (today > licence.validUntil) return "lapsed";
  return "valid";
}

/**
 * Why production keys may not be served on the strength of this licence, naming it and the date,
 * or null while it is verified and in force.
 */
export function inactiveLicenceDetail(licence: LicenceState | null | undefined, at: Date): string | null {
  const status = licenceStatus(licence, at);
  if (status === "valid") return null;
  const rule = "production keys are served only while the organisation's licence is verified and in force.";
  if (status === "missing") return `The organisation has no licence record: ${rule}`;
  const named = `The organisation's licence ${licence!.reference}`;
  const reviewed = utcDay(licence!.reviewedAt ?? licence!.updatedAt);
  const why = {
    pending: `awaits an operator's verification (recorded ${utcDay(licence!.updatedAt)})`,
    rejected: `was rejected on ${reviewed}`,
    revoked: `was revoked on ${reviewed}`,
    lapsed: `lapsed after ${licence!.validUntil}`,
    not_yet_valid: `is valid only from ${licence!.validFrom}`,
  }[status];
  return `${named} ${why}: ${rule}`;
}

/**
 * Why a production key may not be served now, or null; null for any other credential. The API
 * refuses such a key with 403 `licence_inactive`.
 */
export function keyLicenceRefusal(key: { environment: string; licence?: LicenceState | null }, at: Date) {
  if (key.environment !== "production" || key.licence === undefined) return null;
  return inactiveLicenceDetail(key.licence, at);
}

/**
 * The one rule of who may hold production keys (create them, be served with them, read the board
 * in real time): a verified licence in force, and a plan.
 */
export async function mayHoldProductionKeys(db: Database, orgId: string, at: Date): Promise<boolean> {
  const [row] = await db
    .select({ planCode: organisations.planCode, licence: licences })
    .from(organisations)
    .leftJoin(licences, eq(licences.orgId, organisations.id))
    .where(eq(organisations.id, orgId));
  return row !== undefined && row.planCode !== null && licenceStatus(row.licence, at) === "valid";
}

/** Every instance drops what it cached of the organisation's keys once the change commits. */
async function announce(tx: Database, orgId: string): Promise<void> {
  await notifyKeyChange(tx, { orgId });
}

/**
 * Records or replaces the organisation's licence; the previous version stays in the audit log. A
 * new or changed record waits for an operator's verification again (and its production keys stop
 * until then); saving a verified record unchanged keeps it verified.
 */
export async function setLicence(
  db: Database,
  orgId: string,
  input: z.input<typeof licenceInput>,
  actor: Actor,
  at: Date,
): Promise<Licence> {
  const parsed = licenceInput.parse(input);
  const values = {
    reference: parsed.reference,
    authority: parsed.authority,
    holder: parsed.holder,
    territory: parsed.territory ?? null,
    validFrom: parsed.validFrom ?? utcDay(at),
    validUntil: parsed.validUntil,
  };
  if (values.validFrom > values.validUntil) {
    throw new z.ZodError([
      {
        code: "custom",
        path: ["validUntil"],
        message: "Valid until must not be before valid from (today when not given)",
        input,
      },
    ]);
  }
  const licence = await db.transaction(async (tx) => {
    const previous = await getLicence(tx, orgId);
    const unchanged =
      previous?.verification === "verified" && JSON.stringify(pickLicence(previous)) === JSON.stringify(values);
    const review = unchanged
      ? {}
      : { verification: "pending" as const, reviewedAt: null, reviewReason: null, updatedAt: at };
    // A saved record is a new claim, of a new version, which an operator's look at the old one does not cover.
    const version = unchanged ? {} : { version: sql`${licences.version} + 1` };
    const [licence] = await tx
      .insert(licences)
      .values({ id: newId("lic"), orgId, ...values, ...review })
      .onConflictDoUpdate({ target: licences.orgId, set: { ...values, ...review, ...version } })
      .returning();
    await recordAudit(tx, {
      orgId,
      actor,
      action: "licence.set",
      target: licence!.id,
      details: {
        ...values,
        verification: licence!.verification,
        previous: previous ? { ...pickLicence(previous), verification: previous.verification } : null,
      },
    });
    await announce(tx, orgId);
    return licence!;
  });
  return licence;
}

export type LicenceReview = "verify" | "reject" | "revoke";

const REVIEWS: Record<
  LicenceReview,
  { from: LicenceVerification[]; to: LicenceVerification; action: AuditAction; reasonRequired: boolean }
> = {
  verify: { from: ["pending"], to: "verified", action: "licence.verified", reasonRequired: false },
  reject: { from: ["pending"], to: "rejected", action: "licence.rejected", reasonRequired: true },
  revoke: { from: ["verified"], to: "revoked", action: "licence.revoked", reasonRequired: false },
};

/** What the operator was shown of a record: its version, or its reference, or both. */
export type ShownLicence = { version?: number; reference?: string };

/** Why a decision on `shown` may not be taken on `current`, or null when it is the record shown. */
export function changedSinceShown(current: Pick<Licence, "version" | "reference">, shown: ShownLicence): string | null {
  const changed =
    (shown.version !== undefined && shown.version !== current.version) ||
    (shown.reference !== undefined && shown.reference !== current.reference);
  if (!changed) return null;
  return (
    `The record changed: look again. The licence is now ${current.reference} (version ${current.version}), ` +
    `not the ${shown.reference ?? `version ${shown.version}`} that was shown.`
  );
}

/**
 * The operator's decision on the organisation's licence record: verify a pending one, reject a
 * pending one (with a reason the organisation sees), or revoke a verified one. Revoking stops the
 * organisation's production keys on every instance at once. With `shown`, the decision is taken
 * only on the record the operator was shown: one the organisation changed since is refused. The
 * organisation's admins are mailed the decision, unless `tellAdmins` is false (the seed's demo).
 */
export async function reviewLicence(
  db: Database,
  orgId: string,
  review: LicenceReview,
  options: { actor: Actor; at: Date; reason?: string; shown?: ShownLicence; tellAdmins?: boolean },
): Promise<Licence> {
  const rule = REVIEWS[review];
  const reason =
    options.reason === undefined && !rule.reasonRequired
      ? null
      : z.object({ reason: reviewReason }).parse({ reason: options.reason ?? "" }).reason;
  const licence = await db.transaction(async (tx) => {
    // Locked: an organisation's save waits until the decision is taken, and then makes a new version.
    const [current] = await tx.select().from(licences).where(eq(licences.orgId, orgId)).for("update");
    if (!current) throw new DomainError("not_found", "The organisation has no licence record.");
    const changed = options.shown ? changedSinceShown(current, options.shown) : null;
    if (changed) throw new DomainError("record_changed", changed);
    if (!rule.from.includes(current.verification)) {
      throw new DomainError(
        "conflict",
        `The licence ${current.reference} is ${current.verification}; only a ${rule.from.join(" or ")} licence can be ${rule.to}.`,
      );
    }
    const [licence] = await tx
      .update(licences)
      .set({ verification: rule.to, reviewedAt: options.at, reviewReason: reason })
      .where(eq(licences.orgId, orgId))
      .returning();
    await recordAudit(tx, {
      orgId,
      actor: options.actor,
      action: rule.action,
      target: current.id,
      details: { reference: current.reference, version: current.version, validUntil: current.validUntil, reason },
    });
    await announce(tx, orgId);
    if (options.tellAdmins !== false) {
      await licenceAlert(tx, orgId, { reference: current.reference, verification: rule.to, reason }, options.at);
    }
    return licence!;
  });
  return licence;
}

function pickLicence(l: Licence) {
  const { reference, authority, holder, territory, validFrom, validUntil } = l;
  return { reference, authority, holder, territory, validFrom, validUntil };
}
