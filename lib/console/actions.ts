// The console's changes, each in the order of a public endpoint: who is asking (the user id from
// the session, nothing else), their membership and role read from the database now, the input
// checked with zod (inside the domain functions), then the change. Server actions in app/ are
// one-line adapters to these, so tests call exactly what a forged POST would reach.
import "#server-only";
import { z } from "zod";
import { now } from "../clock.ts";
import type { Database } from "../db/index.ts";
import { DomainError } from "../errors.ts";
import { createProductionKey, createSandboxKey, revokeKey, type KeySummary } from "../keys/index.ts";
import { rollKey } from "../keys/roll.ts";
import { keyInScope, updateKey, type KeySettings } from "../keys/settings.ts";
import { licenceInput, setLicence } from "../accounts/licences.ts";
import { requestPlan, setPlan } from "../accounts/plans.ts";
import { requireStepUp } from "../accounts/factors/step-up.ts";
import { requireAdmin } from "./access.ts";
import {
  changeRole,
  createInvitation,
  invitationInput,
  removeMember,
  revokeInvitation,
  roleChangeInput,
} from "./members.ts";

export type Fields = Record<string, string>;

/**
 * When the change is made and by which session (its id from the cookie): key and member changes
 * ask for a recent second factor of that session (lib/accounts/factors/step-up.ts). No session
 * id counts as none recent.
 */
export type StepUp = { at: Date; sessionId?: string | null };

/**
 * Serialisable state for `useActionState`: nothing yet, a refusal for people to read, or done. A
 * refusal carries what was typed (`values`, never a password), so that the form shows it again:
 * React empties a form after its action.
 */
export type ActionState<T = null> =
  | null
  | { error: string; fieldErrors?: Record<string, string>; values?: Fields; stepUp?: true }
  | { ok: string; data: T };

/** A created key as the show-once view receives it: the one response that carries the key. */
export type ShownOnceKey = {
  key: string;
  id: string;
  hint: string;
  environment: KeySummary["environment"];
  sports: string[];
  expiresAt: string | null;
};

/** Form fields as strings, with empty ones left out (an empty optional field means "not given"). */
export function formFields(formData: FormData): Fields {
  const fields: Fields = {};
  for (const [name, value] of formData.entries()) {
    if (typeof value === "string" && value.trim() !== "" && !name.startsWith("$ACTION")) fields[name] = value;
  }
  return fields;
}

/** What was typed into a form, empty fields too, to show again after a refusal: never a password. */
export function formValues(formData: FormData): Fields {
  const values: Fields = {};
  for (const [name, value] of formData.entries()) {
    if (typeof value === "string" && !name.startsWith("$ACTION") && !/password/i.test(name)) values[name] = value;
  }
  return values;
}

/** What a field left empty is told, by the field's name; any other field is told the fallback. */
const REQUIRED: Record<string, string> = {
  organisation: "Enter your organisation's name.",
  name: "Enter your name.",
  email: "Enter your e-mail address.",
  password: "Choose a password of at least 12 characters.",
  url: "Enter the address the messages are to be posted to.",
  thresholds: "Enter at least one threshold, such as 80.",
  reference: "Enter the licence's reference.",
  authority: "Enter the authority that issued the licence.",
  holder: "Enter the licence holder's legal name.",
  validUntil: "Enter the date the licence is valid until.",
  sport: "Choose a sport.",
  role: "Choose a role.",
};
const REQUIRED_FALLBACK = "Fill in this field.";

/** The message of a refused field: in words, and for an empty one, what it needs. */
function issueMessage(issue: z.core.$ZodIssue, field: string, values: Fields | undefined): string {
  const empty = values !== undefined && (values[field] ?? "").trim() === "";
  if (issue.code === "invalid_type" && (empty || issue.message.endsWith("received undefined"))) {
    return REQUIRED[field] ?? REQUIRED_FALLBACK;
  }
  return issue.message;
}

/**
 * Runs a change and turns the domain's refusals into state, with what was typed (`values`, from
 * formValues) and a message under each field refused; anything else is a real error and is thrown.
 */
export async function toActionState<T>(ok: string, change: () => Promise<T>, values?: Fields): Promise<ActionState<T>> {
  try {
    return { ok, data: await change() };
  } catch (error) {
    if (error instanceof DomainError) {
      // A change that asks for a recent second factor: the form offers the step-up beside the message.
      return error.code === "step_up_required"
        ? { error: error.message, values, stepUp: true }
        : { error: error.message, values };
    }
    if (error instanceof z.ZodError) {
      const fieldErrors: Record<string, string> = {};
      for (const issue of error.issues) {
        const field = String(issue.path[0] ?? "form");
        fieldErrors[field] ??= issueMessage(issue, field, values);
      }
      return { error: "Check the marked fields.", fieldErrors, values };
    }
    throw error;
  }
}

function shownOnce(created: { key: string; summary: KeySummary }): ShownOnceKey {
  const { summary } = created;
  return {
    key: created.key,
    id: summary.id,
    hint: summary.hint,
    environment: summary.environment,
    sports: summary.sports,
    expiresAt: summary.expiresAt?.toISOString() ?? null,
  };
}

const keyRef = z.object({ keyId: z.string().min(1, "No key given").max(40) });
const planChoice = z.object({ plan: z.string().min(1, "Choose a plan").max(40) });
const invitationRef = z.object({ invitationId: z.string().min(1).max(40) });

export async function recordLicence(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireAdmin(db, userId);
  const licence = await setLicence(db, access.organisation.id, licenceInput.parse(fields), access.actor, at);
  return { reference: licence.reference, validUntil: licence.validUntil, verification: licence.verification };
}

/** Plans with a listed price only: one priced on request is asked for with `requestPlanFor`. */
export async function choosePlan(db: Database, userId: string | null, fields: Fields) {
  const access = await requireAdmin(db, userId);
  const { plan } = planChoice.parse(fields);
  return (await setPlan(db, access.organisation.id, plan, access.actor, { selfService: true })).name;
}

export async function requestPlanFor(db: Database, userId: string | null, fields: Fields, at: Date) {
  const access = await requireAdmin(db, userId);
  const { plan } = planChoice.parse(fields);
  return (await requestPlan(db, access.organisation.id, plan, access.actor, at)).name;
}

export async function createSandboxKeyFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  options: { at: Date; ttlDays: number },
): Promise<ShownOnceKey> {
  const access = await requireAdmin(db, userId);
  return shownOnce(
    await createSandboxKey(
      db,
      access.organisation.id,
      { sport: fields.sport ?? "" },
      { actor: access.actor, ...options },
    ),
  );
}

export async function createProductionKeyFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at, sessionId }: StepUp,
): Promise<ShownOnceKey> {
  const access = await requireAdmin(db, userId);
  await requireStepUp(db, access.user.id, sessionId, at);
  return shownOnce(
    await createProductionKey(db, access.organisation.id, { name: fields.name }, { actor: access.actor, at }),
  );
}

/** Scoped to the caller's organisation: another organisation's key id is "not found", never revoked. */
export async function revokeKeyFor(db: Database, userId: string | null, fields: Fields, { at, sessionId }: StepUp) {
  const access = await requireAdmin(db, userId);
  const { keyId } = keyRef.parse(fields);
  await requireStepUp(db, access.user.id, sessionId, at);
  const { summary } = await revokeKey(db, keyId, access.organisation.id, { actor: access.actor, at });
  return summary.hint;
}

/**
 * A `datetime-local` field's value, which the form labels UTC, as an ISO time; anything else is
 * passed on for the domain's validation to refuse.
 */
export function utcFromField(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value;
}

/**
 * The key settings form, which always carries every setting: a field left empty clears it. The
 * expiry is sent back as shown (to the minute) when untouched, and then is not a change.
 */
export function keySettingsFromForm(fields: Fields, sandbox: boolean): KeySettings {
  const settings: KeySettings = { name: fields.name ?? null };
  if (sandbox) return settings;
  settings.sports = Object.keys(fields)
    .filter((field) => field.startsWith("sport:"))
    .map((field) => field.slice("sport:".length)) as KeySettings["sports"];
  settings.allowedIps = fields.allowedIps ?? null;
  const expiry = fields.expiresAt ?? "";
  if (expiry !== (fields.expiresAtShown ?? "")) settings.expiresAt = expiry ? utcFromField(expiry) : null;
  // An emptied limit is the plan's again (formFields leaves empty fields out, as it does the allowlist).
  for (const field of ["monthlyQuota", "requestsPerSecond"] as const) settings[field] = fields[field]?.trim() || null;
  return settings;
}

/** Scoped to the caller's organisation, as revoking is. */
export async function updateKeyFor(db: Database, userId: string | null, fields: Fields, { at, sessionId }: StepUp) {
  const access = await requireAdmin(db, userId);
  const { keyId } = keyRef.parse(fields);
  const key = await keyInScope(db, keyId, access.organisation.id);
  const settings = keySettingsFromForm(fields, key.environment === "sandbox");
  const { summary, changed } = await updateKey(db, key.id, access.organisation.id, settings, {
    actor: access.actor,
    at,
    // A name or expiry alone is no step-up; the sports or the allowlist are.
    beforeScopeChange: () => requireStepUp(db, access.user.id, sessionId, at),
  });
  return { hint: summary.hint, changed };
}

/** A rolled key's successor, shown once, and when the old key stops working. */
export type RolledKeyShown = ShownOnceKey & { predecessorHint: string; predecessorExpiresAt: string };

/** Scoped to the caller's organisation, as revoking is. */
export async function rollKeyFor(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at, sessionId }: StepUp,
): Promise<RolledKeyShown> {
  const access = await requireAdmin(db, userId);
  const { keyId } = keyRef.parse(fields);
  await requireStepUp(db, access.user.id, sessionId, at);
  const rolled = await rollKey(
    db,
    keyId,
    access.organisation.id,
    { overlapSeconds: fields.overlapSeconds },
    { actor: access.actor, at },
  );
  return {
    ...shownOnce(rolled),
    predecessorHint: rolled.predecessor.hint,
    predecessorExpiresAt: rolled.predecessor.expiresAt!.toISOString(),
  };
}

export async function inviteMember(
  db: Database,
  userId: string | null,
  fields: Fields,
  options: { at: Date; ttlDays: number; origin?: string },
) {
  const access = await requireAdmin(db, userId);
  const input = invitationInput.parse(fields);
  const { token, invitation, mailed } = await createInvitation(db, access.organisation.id, input, {
    actor: access.actor,
    ...options,
  });
  return {
    token,
    role: invitation.role,
    expiresAt: invitation.expiresAt.toISOString(),
    mailedTo: mailed ? (input.email ?? null) : null,
  };
}

export async function withdrawInvitation(db: Database, userId: string | null, fields: Fields) {
  const access = await requireAdmin(db, userId);
  const { invitationId } = invitationRef.parse(fields);
  await revokeInvitation(db, access.organisation.id, invitationId, access.actor);
  return null;
}

export async function changeMemberRole(
  db: Database,
  userId: string | null,
  fields: Fields,
  { at = now(), sessionId }: Partial<StepUp> = {},
) {
  const access = await requireAdmin(db, userId);
  const input = roleChangeInput.parse(fields);
  await requireStepUp(db, access.user.id, sessionId, at);
  await changeRole(db, access.organisation.id, input, access.actor);
  return null;
}

export async function removeMemberFrom(db: Database, userId: string | null, fields: Fields) {
  const access = await requireAdmin(db, userId);
  if (fields.userId === access.user.id) throw new DomainError("conflict", "You cannot remove yourself.");
  await removeMember(db, access.organisation.id, { userId: fields.userId ?? "" }, access.actor);
  return null;
}
