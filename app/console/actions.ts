"use server";
// The console's server actions: one-line adapters from a form to lib/console, which checks the
// membership, the role and the input. Public POST endpoints, whatever the UI shows.
import { currentInstance } from "@/lib/instance";
import { now } from "@/lib/clock";
import {
  changeMemberRole,
  choosePlan,
  createProductionKeyFor,
  createSandboxKeyFor,
  formFields,
  formValues,
  inviteMember,
  recordLicence,
  removeMemberFrom,
  requestPlanFor,
  revokeKeyFor,
  rollKeyFor,
  toActionState,
  updateKeyFor,
  withdrawInvitation,
  type ActionState,
  type RolledKeyShown,
  type ShownOnceKey,
} from "@/lib/console/actions";
import { acceptInput, acceptInvitation } from "@/lib/console/members";
import { admitInvitationAccept } from "@/lib/accounts/sign-up-limits";
import { saveAlertSettings } from "@/lib/accounts/mail/notices";
import { requireAccess } from "@/lib/console/access";
import { database, runAction } from "./_lib/console";
import { publicOrigin, requestAddress } from "./_lib/origin";

type Invitation = { token: string; role: string; expiresAt: string; mailedTo: string | null };

export async function recordLicenceAction(_: unknown, form: FormData) {
  return runAction(form, "Licence recorded.", (db, user, fields) => recordLicence(db, user, fields, now()));
}

export async function choosePlanAction(_: unknown, form: FormData) {
  return runAction(form, "Plan chosen.", choosePlan);
}

export async function requestPlanAction(_: unknown, form: FormData) {
  return runAction(form, "Plan requested: it starts once an operator approves it.", (db, user, fields) =>
    requestPlanFor(db, user, fields, now()),
  );
}

export async function createSandboxKeyAction(_: unknown, form: FormData): Promise<ActionState<ShownOnceKey>> {
  const ttlDays = currentInstance().config.SANDBOX_KEY_TTL_DAYS;
  return runAction(form, "Sandbox key created.", (db, user, fields) =>
    createSandboxKeyFor(db, user, fields, { at: now(), ttlDays }),
  );
}

export async function createProductionKeyAction(_: unknown, form: FormData): Promise<ActionState<ShownOnceKey>> {
  return runAction(form, "Production key created.", (db, user, fields, sessionId) =>
    createProductionKeyFor(db, user, fields, { at: now(), sessionId }),
  );
}

export async function revokeKeyAction(_: unknown, form: FormData) {
  return runAction(form, "Key revoked: requests with it are refused from now on.", (db, user, fields, sessionId) =>
    revokeKeyFor(db, user, fields, { at: now(), sessionId }),
  );
}

export async function updateKeyAction(_: unknown, form: FormData) {
  return runAction(form, "Key settings saved.", (db, user, fields, sessionId) =>
    updateKeyFor(db, user, fields, { at: now(), sessionId }),
  );
}

export async function rollKeyAction(_: unknown, form: FormData): Promise<ActionState<RolledKeyShown>> {
  return runAction(form, "Key rolled: store the new key now.", (db, user, fields, sessionId) =>
    rollKeyFor(db, user, fields, { at: now(), sessionId }),
  );
}

export async function inviteMemberAction(_: unknown, form: FormData): Promise<ActionState<Invitation>> {
  const ttlDays = currentInstance().config.INVITATION_TTL_DAYS;
  const origin = await publicOrigin();
  const state = await runAction(form, "Invitation created.", (db, user, fields) =>
    inviteMember(db, user, fields, { at: now(), ttlDays, origin }),
  );
  return state;
}

export async function withdrawInvitationAction(_: unknown, form: FormData) {
  return runAction(form, "Invitation withdrawn.", withdrawInvitation);
}

export async function changeRoleAction(_: unknown, form: FormData) {
  return runAction(form, "Role changed.", (db, user, fields, sessionId) =>
    changeMemberRole(db, user, fields, { at: now(), sessionId }),
  );
}

export async function removeMemberAction(_: unknown, form: FormData) {
  return runAction(form, "Member removed.", removeMemberFrom);
}

// Before sign-in: these create accounts, and the browser then signs in through next-auth.

export async function acceptInvitationAction(_: unknown, form: FormData): Promise<ActionState<{ email: string }>> {
  const db = await database();
  const address = await requestAddress();
  return toActionState(
    "Welcome aboard.",
    async () => {
      const fields = acceptInput.parse(formFields(form));
      await admitInvitationAccept(db, address, now());
      const user = await acceptInvitation(db, fields, now());
      return { email: user.email };
    },
    formValues(form),
  );
}

export async function saveMailSettingsAction(_: unknown, form: FormData) {
  return runAction(form, "Saved: only the alerts ticked are mailed to you.", async (db, user, fields) => {
    const access = await requireAccess(db, user);
    return saveAlertSettings(db, access.user.id, fields);
  });
}
