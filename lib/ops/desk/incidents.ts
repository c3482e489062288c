import "#server-only";
import type { z } from "zod";
import { recordAudit, type Actor } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import type { IncidentState } from "../../db/schema/index.ts";
import { openIncident, updateIncident, type Incident, type openIncidentInput } from "../status/incidents.ts";

// The status page's incidents as operators change them, at the desk or with the CLI: each change
// in the operators' audit log with the incident.

export async function openIncidentBy(
  db: Database,
  input: z.input<typeof openIncidentInput>,
  actor: Actor,
  at: Date,
): Promise<Incident> {
  return db.transaction(async (tx) => {
    const incident = await openIncident(tx, input, at);
    await recordAudit(tx, {
      orgId: null,
      actor,
      action: "incident.opened",
      target: incident.id,
      details: { title: incident.title, state: incident.state, components: incident.components },
    });
    return incident;
  });
}

export async function updateIncidentBy(
  db: Database,
  id: string,
  input: { text: string; state?: IncidentState },
  actor: Actor,
  at: Date,
): Promise<Incident> {
  return db.transaction(async (tx) => {
    const incident = await updateIncident(tx, id, input, at);
    await recordAudit(tx, {
      orgId: null,
      actor,
      action: "incident.updated",
      target: incident.id,
      details: { title: incident.title, state: incident.state },
    });
    return incident;
  });
}
