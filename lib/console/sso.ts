// The console's single sign-on settings, each in the order of a public endpoint as the other
// console changes: the session's user id, their membership and role read now (an admin), the
// Enterprise plan, the input checked, a recent second factor for the provider's settings (they
// decide who gets in), then the change. Server actions in app/console/sso-actions.ts are one-line
// adapters to these.
import "#server-only";
import { now } from "../clock.ts";
import type { Database } from "../db/index.ts";
import { requireStepUp } from "../accounts/factors/step-up.ts";
import {
  addDomain,
  removeDomain,
  requireSsoPlan,
  saveConnection,
  verifyDomain,
  type TxtLookup,
} from "../accounts/sso/connections.ts";
import type { IssuerAccess } from "../accounts/sso/provider.ts";
import { requireAdmin } from "./access.ts";
import type { Fields, StepUp } from "./actions.ts";

export async function saveSsoConnectionFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at = now(), sessionId, key, access }: Partial<StepUp> & { key: Buffer; access: IssuerAccess },
) {
  const admin = await requireAdmin(db, userId);
  await requireSsoPlan(db, admin.organisation.id);
  await requireStepUp(db, admin.user.id, sessionId, at);
  await saveConnection(db, admin.organisation.id, fields, { actor: admin.actor, key, access, at });
  return null;
}

export async function addSsoDomainFor(db: Database, userId: string | null, fields: Fields) {
  const admin = await requireAdmin(db, userId);
  const { domain, token } = await addDomain(db, admin.organisation.id, fields, admin.actor);
  return { domain, token };
}

export async function verifySsoDomainFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at = now(), lookup }: { at?: Date; lookup?: TxtLookup } = {},
) {
  const admin = await requireAdmin(db, userId);
  await requireSsoPlan(db, admin.organisation.id);
  await verifyDomain(db, admin.organisation.id, fields.domain ?? "", { actor: admin.actor, at, by: "dns", lookup });
  return null;
}

export async function removeSsoDomainFor(db: Database, userId: string | null, fields: Fields) {
  const admin = await requireAdmin(db, userId);
  await removeDomain(db, admin.organisation.id, fields, admin.actor);
  return null;
}
