"use server";
// The desk's server actions: one-line adapters from a form to lib/ops/desk, which checks that the
// user is an operator now and the input. Public POST endpoints, whatever the UI shows.
import { now } from "@/lib/clock";
import {
  approvePlan,
  decideLicence,
  declinePlan,
  openIncidentFor,
  resendMailFor,
  resetMemberFactors,
  verifySsoDomainByOperator,
  updateIncidentFor,
} from "@/lib/ops/desk/actions";
import { runDeskAction } from "./_lib/desk";

export async function verifyLicenceAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Verified: the organisation's production keys work from now on.", (db, user, fields) =>
    decideLicence(db, user, "verify", fields, now()),
  );
}

export async function rejectLicenceAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Rejected: the organisation sees the reason.", (db, user, fields) =>
    decideLicence(db, user, "reject", fields, now()),
  );
}

export async function revokeLicenceAction(_: unknown, form: FormData) {
  return runDeskAction(
    form,
    "Revoked: the organisation's production keys are refused from now on.",
    (db, user, fields) => decideLicence(db, user, "revoke", fields, now()),
  );
}

export async function approvePlanAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Approved: the plan starts now.", approvePlan);
}

export async function declinePlanAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Declined: the organisation sees the reason.", (db, user, fields) =>
    declinePlan(db, user, fields, now()),
  );
}

export async function openIncidentAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Incident opened: /status shows it.", (db, user, fields) =>
    openIncidentFor(db, user, fields, now()),
  );
}

export async function updateIncidentAction(_: unknown, form: FormData) {
  return runDeskAction(form, "Incident updated.", (db, user, fields) => updateIncidentFor(db, user, fields, now()));
}

export async function resendMailAction(_: unknown, form: FormData) {
  const state = await runDeskAction(form, "Queued again: it is sent within seconds.", (db, user, fields) =>
    resendMailFor(db, user, fields, now()),
  );
  return state;
}

export async function resetFactorsAction(_: unknown, form: FormData) {
  return runDeskAction(
    form,
    "Second factors reset: the member sets one up again if one is required.",
    (db, user, fields) => resetMemberFactors(db, user, fields),
  );
}

export async function verifySsoDomainAction(_: unknown, form: FormData) {
  return runDeskAction(
    form,
    "Domain verified: its addresses sign in through the organisation's provider.",
    (db, user, fields) => verifySsoDomainByOperator(db, user, fields),
  );
}
