import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "./audit.ts";
import { utcDay } from "./clock.ts";
import type { Database } from "./db/index.ts";
import { licences } from "./db/schema/index.ts";
import { newId } from "./ids.ts";

export type Licence = typeof licences.$inferSelect;
export type LicenceStatus = "missing" | "valid" | "not_yet_valid" | "lapsed";

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

export function getLicence(db: Database, orgId: string): Promise<Licence | undefined> {
  return db
    .select()
    .from(licences)
    .where(eq(licences.orgId, orgId))
    .then((rows) => rows[0]);
}

/** Validity is judged by whole UTC days: a licence valid until 2027-03-31 covers all of that day. */
export function licenceStatus(licence: Licence | undefined, at: Date): LicenceStatus {
  if (!licence) return "missing";
  const today = utcDay(at);
  if (today < licence.validFrom) return "not_yet_valid";
  if (today > licence.validUntil) return "lapsed";
  return "valid";
}

/** Records or replaces the organisation's licence; the previous version stays in the audit log. */
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
  return db.transaction(async (tx) => {
    const previous = await getLicence(tx, orgId);
    const [licence] = await tx
      .insert(licences)
      .values({ id: newId("lic"), orgId, ...values })
      .onConflictDoUpdate({ target: licences.orgId, set: { ...values, updatedAt: at } })
      .returning();
    await recordAudit(tx, {
      orgId,
      actor,
      action: "licence.set",
      target: licence!.id,
      details: { ...values, previous: previous ? pickLicence(previous) : null },
    });
    return licence!;
  });
}

function pickLicence(l: Licence) {
  const { reference, authority, holder, territory, validFrom, validUntil } = l;
  return { reference, authority, holder, territory, validFrom, validUntil };
}
