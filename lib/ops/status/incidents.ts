import { desc, eq, gte, isNull, or } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/index.ts";
import { INCIDENT_STATES, statusIncidents, type IncidentState } from "../../db/schema/index.ts";
import { DomainError } from "../../errors.ts";
import { newId } from "../../ids.ts";

// Incidents on the status page: an operator opens one with the components it affects, posts
// updates as it moves through its states, and resolves it. The CLI is the only writer.

export type Incident = typeof statusIncidents.$inferSelect;

/** A component as the status page names it: api, streams, console, or feed:<sport>. */
const componentSchema = z
  .string()
  .trim()
  .regex(/^(api|streams|console|feed:[a-z_]+)$/, "is api, streams, console or feed:<sport>");
const textSchema = z.string().trim().min(1, "is required").max(2_000);

export const openIncidentInput = z.strictObject({
  title: z.string().trim().min(1, "is required").max(200),
  components: z.array(componentSchema).min(1, "name at least one component"),
  text: textSchema,
  state: z.enum(INCIDENT_STATES).exclude(["resolved"]).default("investigating"),
});

export async function openIncident(
  db: Database,
  input: z.input<typeof openIncidentInput>,
  at: Date,
): Promise<Incident> {
  const { title, components, text, state } = openIncidentInput.parse(input);
  const [incident] = await db
    .insert(statusIncidents)
    .values({
      id: newId("inc"),
      title,
      components: [...new Set(components)],
      state,
      startedAt: at,
      updates: [{ at: at.toISOString(), state, text }],
    })
    .returning();
  return incident!;
}

/** A new update; `resolved` ends the incident (and only once). */
export async function updateIncident(
  db: Database,
  id: string,
  input: { text: string; state?: IncidentState },
  at: Date,
): Promise<Incident> {
  const text = textSchema.parse(input.text);
  const [incident] = await db.select().from(statusIncidents).where(eq(statusIncidents.id, id));
  if (!incident) throw new DomainError("not_found", `No incident ${id}.`);
  if (incident.state === "resolved") throw new DomainError("conflict", `Incident ${id} is resolved already.`);
  const state = input.state ? z.enum(INCIDENT_STATES).parse(input.state) : incident.state;
  const [updated] = await db
    .update(statusIncidents)
    .set({
      state,
      resolvedAt: state === "resolved" ? at : null,
      updates: [...incident.updates, { at: at.toISOString(), state, text }],
    })
    .where(eq(statusIncidents.id, id))
    .returning();
  return updated!;
}

/** Those still open, and those resolved after `since`, newest first. */
export async function recentIncidents(db: Database, since: Date): Promise<Incident[]> {
  return db
    .select()
    .from(statusIncidents)
    .where(or(isNull(statusIncidents.resolvedAt), gte(statusIncidents.resolvedAt, since)))
    .orderBy(desc(statusIncidents.startedAt))
    .limit(50);
}
