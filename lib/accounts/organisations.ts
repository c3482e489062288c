import { asc, eq, or } from "drizzle-orm";
import { z } from "zod";
import { recordAudit, type Actor } from "./audit.ts";
import type { Database } from "../db/index.ts";
import { organisations } from "../db/schema/index.ts";
import { DomainError, isUniqueViolation } from "../errors.ts";
import { newId } from "../ids.ts";

export type Organisation = typeof organisations.$inferSelect;

export const organisationInput = z.object({
  name: z.string().trim().min(2, "Name needs at least 2 characters").max(120),
  slug: z
    .string()
    .trim()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "Slug may hold lower-case letters, digits and single hyphens")
    .max(60)
    .optional(),
});

export function slugify(name: string): string {
  return (
    name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "organisation"
  );
}

export async function createOrganisation(
  db: Database,
  input: z.input<typeof organisationInput>,
  actor: Actor,
): Promise<Organisation> {
  const { name, slug } = organisationInput.parse(input);
  try {
    return await db.transaction(async (tx) => {
      const [organisation] = await tx
        .insert(organisations)
        .values({ id: newId("org"), name, slug: slug ?? slugify(name) })
        .returning();
      await recordAudit(tx, {
        orgId: organisation!.id,
        actor,
        action: "organisation.created",
        target: organisation!.id,
        details: { name },
      });
      return organisation!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new DomainError(
        "conflict",
        `An organisation with the slug "${slug ?? slugify(name)}" already exists; choose another --slug.`,
      );
    }
    throw error;
  }
}

/** Finds an organisation by id (`org_…`) or slug. */
export async function findOrganisation(db: Database, ref: string): Promise<Organisation> {
  const [organisation] = await db
    .select()
    .from(organisations)
    .where(or(eq(organisations.id, ref), eq(organisations.slug, ref)))
    .limit(1);
  if (!organisation) throw new DomainError("not_found", `No organisation with id or slug "${ref}".`);
  return organisation;
}

export function listOrganisations(db: Database): Promise<Organisation[]> {
  return db.select().from(organisations).orderBy(asc(organisations.createdAt), asc(organisations.id));
}
