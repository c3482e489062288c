import { POLICY_WORDS } from "../accounts/factors/policy.ts";
import type { AuditAction } from "../accounts/audit.ts";
import type { SecondFactorPolicy } from "../db/schema/index.ts";
import { sportName } from "../sports.ts";

// The audit log as people read it: each entry one sentence after the actor's name ("joined as a
// viewer", "sent a test message to https://…"), never a raw code. Pure: the page gives it the
// names it can look up (keys by name and hint, members by e-mail, webhook endpoints by URL).

export type AuditLine = {
  action: string;
  actor: string;
  actorUserId: string | null;
  target: string | null;
  details: unknown;
};

export type AuditNames = {
  /** A key of the organisation as people name it: its name and hint, or its hint. */
  key(id: string): string | undefined;
  member(userId: string): string | undefined;
  endpoint(id: string): string | undefined;
};

type Details = Record<string, unknown>;
type Describe = (details: Details, line: AuditLine, names: AuditNames) => string;

const factorName = (d: Details) =>
  d.kind === "passkey" ? `the passkey “${text(d.name)}”` : `the authenticator app “${text(d.name)}”`;
const text = (value: unknown) => (value === null || value === undefined || value === "" ? "none" : String(value));
const role = (value: unknown) => (value === "admin" ? "an admin" : value === "viewer" ? "a viewer" : text(value));
const keyOf = (line: AuditLine, names: AuditNames, id = line.target) =>
  (id && names.key(id)) ?? (id ? `key ${id}` : "a key");
const memberOf = (line: AuditLine, names: AuditNames, details: Details) =>
  (typeof details.email === "string" ? details.email : line.target && names.member(line.target)) ?? "a member";
const endpointOf = (id: unknown, names: AuditNames) =>
  (typeof id === "string" && names.endpoint(id)) || "a webhook endpoint";

/** A key setting's change, as "its name from “a” to “b”". */
function settingChange(field: string, change: unknown): string {
  const { from, to } = (change ?? {}) as { from?: unknown; to?: unknown };
  const value = (v: unknown) =>
    Array.isArray(v)
      ? v.length
        ? v.map((each) => (field === "sports" ? sportName(String(each)) : String(each))).join(", ")
        : "none"
      : field === "name" && typeof v === "string"
        ? `“${v}”`
        : (field === "monthlyQuota" || field === "requestsPerSecond") && v === null
          ? "the plan's"
          : text(v);
  const label: Record<string, string> = {
    name: "its name",
    sports: "its sports",
    allowedIps: "its IP allowlist",
    expiresAt: "its expiry",
    monthlyQuota: "its own monthly quota",
    requestsPerSecond: "its own requests a second",
  };
  return `${label[field] ?? field} from ${value(from)} to ${value(to)}`;
}

const SENTENCES: Record<AuditAction, Describe> = {
  "organisation.created": () => "created the organisation",
  "member.added": (d, line, names) =>
    // Someone who signed up or accepted an invitation is both the actor and the member added: they joined.
    line.actor === d.email || (line.actorUserId !== null && line.actorUserId === line.target)
      ? `joined as ${role(d.role)}`
      : `added ${memberOf(line, names, d)} as ${role(d.role)}`,
  "member.invited": (d) => `invited a new member, to join as ${role(d.role)}`,
  "member.role_changed": (d, line, names) =>
    `made ${(line.target && names.member(line.target)) ?? "a member"} ${role(d.to)} (was ${role(d.from)})`,
  "member.removed": (d, line, names) => `removed ${memberOf(line, names, d)} from the organisation`,
  "invitation.revoked": () => "withdrew an invitation",
  "user.signed_in": (d) =>
    d.by === "single sign-on"
      ? "signed in through single sign-on"
      : d.by === "passkey"
        ? `signed in with the passkey “${text(d.passkey)}”`
        : "signed in",
  "user.signed_out": () => "signed out",
  "user.password_reset": () => "reset their password",
  "licence.set": (d) => {
    const previous = d.previous as Details | undefined;
    return (
      `recorded the licence ${text(d.reference)} (${text(d.authority)}, held by ${text(d.holder)}), valid from ` +
      `${text(d.validFrom)} to ${text(d.validUntil)}` +
      (previous ? `, replacing ${text(previous.reference)} (valid until ${text(previous.validUntil)})` : "")
    );
  },
  "licence.verified": (d) => `verified the licence ${text(d.reference)}`,
  "licence.rejected": (d) => `rejected the licence ${text(d.reference)}${d.reason ? `: ${text(d.reason)}` : ""}`,
  "licence.revoked": (d) => `revoked the licence ${text(d.reference)}${d.reason ? `: ${text(d.reason)}` : ""}`,
  "plan.set": (d, line) => `chose the ${text(line.target)} plan${d.previous ? ` (was ${text(d.previous)})` : ""}`,
  "plan.requested": (_, line) => `asked for the ${text(line.target)} plan, which an operator approves`,
  "plan.approved": (_, line) => `approved the ${text(line.target)} plan`,
  "plan.declined": (d, line) => `declined the request for the ${text(line.target)} plan: ${text(d.reason)}`,
  "key.created": (d, line, names) =>
    d.rolledFrom
      ? `created ${keyOf(line, names)}, the successor of ${keyOf(line, names, String(d.rolledFrom))}`
      : `created the ${text(d.environment)} key ${keyOf(line, names)}${d.sport ? ` for ${sportName(String(d.sport))}` : ""}`,
  "key.revoked": (_, line, names) => `revoked the key ${keyOf(line, names)}`,
  "key.updated": (d, line, names) =>
    `changed the key ${keyOf(line, names)}: ${Object.entries(d)
      .map(([field, change]) => settingChange(field, change))
      .join("; ")}`,
  "key.rolled": (d, line, names) =>
    `rolled the key ${keyOf(line, names)} to ${keyOf(line, names, String(d.successor))}; the old key works until ` +
    `${text(d.expiresAt).replace("T", " ").slice(0, 16)} UTC`,
  "webhook.created": (d) => `added the webhook endpoint ${text(d.url)}`,
  "webhook.secret_rotated": (d) => `rotated the signing secret of ${text(d.url)}`,
  "webhook.disabled": (d) => `disabled the webhook endpoint ${text(d.url)}`,
  "webhook.auto_disabled": (d) => `disabled the webhook endpoint ${text(d.url)} after a day of failed deliveries`,
  "webhook.enabled": (d) => `enabled the webhook endpoint ${text(d.url)}`,
  "webhook.test_sent": (_, line, names) => `sent a test message to ${endpointOf(line.target, names)}`,
  "webhook.redelivered": (d, _, names) => `sent a webhook message to ${endpointOf(d.endpoint, names)} again`,
  "usage.thresholds_set": (d) =>
    `set the usage alerts at ${Array.isArray(d.thresholds) ? d.thresholds.map((t) => `${t} %`).join(", ") : text(d.thresholds)} of each key's monthly quota`,
  "operator.added": (d, line) => `added the operator ${text(d.email ?? line.target)}`,
  "operator.removed": (d, line) => `removed the operator ${text(d.email ?? line.target)}`,
  "operator.signed_in": (d) =>
    d.by === "passkey" ? `signed in to the desk with the passkey “${text(d.passkey)}”` : "signed in to the desk",
  "operator.signed_out": () => "signed out of the desk",
  "operator.viewed_organisation": () => "opened the organisation's file at the desk",
  "mail.resent": () => "sent a message of the outbox again",
  "incident.opened": (d) => `opened the incident “${text(d.title)}”`,
  "factor.added": (d) => `added ${factorName(d)} as a second factor`,
  "factor.removed": (d) => `removed ${factorName(d)} from their second factors`,
  "factor.recovery_code_used": () => "signed in with a recovery code",
  "factor.recovery_codes_replaced": () => "made a new set of recovery codes; the old set no longer works",
  "factor.step_up": (d) =>
    `confirmed it was them with ${d.method === "passkey" ? "a passkey" : "a second factor"} before a key or member change`,
  "factor.reset_by_operator": (d) =>
    `reset the second factors of ${text(d.email)}, who sets one up again at their next sign-in`,
  "organisation.second_factor_policy_set": (d) =>
    `changed the second-factor policy from “${POLICY_WORDS[d.from as SecondFactorPolicy] ?? text(d.from)}” to “${POLICY_WORDS[d.to as SecondFactorPolicy] ?? text(d.to)}”`,
  "sso.configured": (d) =>
    `set up single sign-on through ${text(d.issuer)} (client id ${text(d.clientId)}${d.secretChanged ? ", a new client secret" : ""}): new members join as ${role(d.joinRole)}, and ${d.requireSso ? "members other than admins must sign in through it" : "passwords still work"}`,
  "sso.domain_added": (_, line) => `claimed the domain ${text(line.target)} for single sign-on`,
  "sso.domain_removed": (_, line) => `removed the domain ${text(line.target)} from single sign-on`,
  "sso.domain_verified": (d, line) =>
    d.by === "operator"
      ? `verified the domain ${text(line.target)} for single sign-on on the operators' desk`
      : `verified the domain ${text(line.target)} for single sign-on by its DNS record`,
  "incident.updated": (d) => `updated the incident “${text(d.title)}”${d.state ? ` (${text(d.state)})` : ""}`,
};

/** No names to look up: the sentence falls back to ids (the operators' desk, across organisations). */
export const NO_AUDIT_NAMES: AuditNames = { key: () => undefined, member: () => undefined, endpoint: () => undefined };

/** "joined as a viewer": what the actor did, as the rest of a sentence that begins with their name. */
export function auditSentence(line: AuditLine, names: AuditNames): string {
  const describe = SENTENCES[line.action as AuditAction] as Describe | undefined;
  const details = (line.details ?? {}) as Details;
  // An action this version does not know yet (a later version's): its code in words, not as a code.
  return describe ? describe(details, line, names) : `did this: ${line.action.replace(/[._]+/g, " ")}`;
}
