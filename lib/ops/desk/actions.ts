// The desk's changes, each in the order of a public endpoint, as the console's are: who is asking
// (the user id from the session, nothing else), whether they are an operator now (read from the
// database: anyone else is told "not found"), the input checked with zod, then the change, which
// the audit log records with the operator's name. Server actions in app/operator are one-line
// adapters to these.
import "#server-only";
import { z } from "zod";
import { recordAudit } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import { INCIDENT_STATES } from "../../db/schema/index.ts";
import { reviewLicence, reviewReason, type LicenceReview } from "../../accounts/licences.ts";
import { requireOperator, type OperatorAccess } from "../../accounts/operators.ts";
import { approvePlanRequest, declinePlanRequest } from "../../accounts/plans.ts";
import { resetFactorsByOperator } from "../../accounts/factors/manage.ts";
import { openIncidentBy, updateIncidentBy } from "./incidents.ts";
import { resendMail } from "../../accounts/mail/outbox.ts";
import { verifyDomain } from "../../accounts/sso/connections.ts";
import { now } from "../../clock.ts";

type Fields = Record<string, string>;

const orgRef = z.string().min(1).max(40);

const licenceDecision = z.object({
  orgId: orgRef,
  // The version of the record the page showed: a record changed since is not decided unseen.
  version: z.coerce.number().int().positive(),
  reason: reviewReason.optional(),
});

/** Verify, reject or revoke the record exactly as the page showed it. */
export async function decideLicence(
  db: Database,
  userId: string | null,
  review: LicenceReview,
  fields: Fields,
  at: Date,
) {
  const access = await requireOperator(db, userId);
  const { orgId, version, reason } = licenceDecision.parse(fields);
  const licence = await reviewLicence(db, orgId, review, { actor: access.actor, at, reason, shown: { version } });
  return { reference: licence.reference, verification: licence.verification };
}

const planDecision = z.object({ orgId: orgRef, plan: z.string().min(1).max(40) });

export async function approvePlan(db: Database, userId: string | null, fields: Fields) {
  const access = await requireOperator(db, userId);
  const { orgId, plan } = planDecision.parse(fields);
  return (await approvePlanRequest(db, orgId, access.actor, { shown: plan })).name;
}

export async function declinePlan(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireOperator(db, userId);
  const { orgId } = planDecision.pick({ orgId: true }).parse(fields);
  return (await declinePlanRequest(db, orgId, fields.reason ?? "", access.actor, at)).name;
}

const COMPONENT_FIELD = "component:";

/** The components ticked on the form (`component:api`, …) and the sports' feeds typed beside them. */
function components(fields: Fields): string[] {
  const ticked = Object.keys(fields)
    .filter((name) => name.startsWith(COMPONENT_FIELD))
    .map((name) => name.slice(COMPONENT_FIELD.length));
  const feeds = (fields.feeds ?? "")
    .split(",")
    .map((sport) => sport.trim())
    .filter(Boolean)
    .map((sport) => `feed:${sport}`);
  return [...ticked, ...feeds];
}

export async function openIncidentFor(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireOperator(db, userId);
  const incident = await openIncidentBy(
    db,
    {
      title: fields.title ?? "",
      components: components(fields),
      text: fields.text ?? "",
      state: (fields.state ?? "investigating") as "investigating",
    },
    access.actor,
    at,
  );
  return incident.id;
}

const incidentUpdate = z.object({
  incidentId: z.string().min(1).max(40),
  state: z.enum(INCIDENT_STATES).optional(),
  text: z.string(),
});

export async function updateIncidentFor(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireOperator(db, userId);
  const { incidentId, state, text } = incidentUpdate.parse({ ...fields, text: fields.text ?? "" });
  const incident = await updateIncidentBy(db, incidentId, { text, state }, access.actor, at);
  return incident.state;
}

/** An operator opened an organisation's file: reading a customer's data is on the record too. */
export async function recordOrganisationView(db: Database, access: OperatorAccess, orgId: string): Promise<void> {
  await recordAudit(db, { orgId, actor: access.actor, action: "operator.viewed_organisation", target: orgId });
}

const mailRef = z.object({ messageId: z.string().min(1).max(40) });

/** Sends a failed or kept message of the outbox again. */
export async function resendMailFor(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireOperator(db, userId);
  const { messageId } = mailRef.parse(fields);
  await resendMail(db, messageId, at);
  await recordAudit(db, { orgId: null, actor: access.actor, action: "mail.resent", target: messageId });
  return null;
}

/** A member who lost their second factors: the operator removes them all (audited; the member is told). */
export async function resetMemberFactors(db: Database, userId: string | null, fields: Fields) {
  const access = await requireOperator(db, userId);
  return resetFactorsByOperator(db, access, { userId: fields.userId ?? "" });
}

/** Verifies an organisation's single sign-on domain where its DNS cannot be checked: the operator's word, audited. */
export async function verifySsoDomainByOperator(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at = now() }: { at?: Date } = {},
) {
  const access = await requireOperator(db, userId);
  const input = z.object({ orgId: orgRef, domain: z.string().min(1).max(253) }).parse(fields);
  const { domain } = await verifyDomain(db, input.orgId, input.domain, {
    actor: { ...access.actor, operator: true },
    at,
    by: "operator",
  });
  return { domain };
}
