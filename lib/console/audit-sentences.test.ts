import { describe, expect, it } from "vitest";
import { auditSentence, type AuditLine, type AuditNames } from "./audit-sentences.ts";

const names: AuditNames = {
  key: (id) => ({ key_1: "“Web app” (svc_sk_…kBaV)", key_2: "“Web app” (svc_sk_…Q2x9)" })[id],
  member: (id) => ({ usr_v: "victor@example.com" })[id],
  endpoint: (id) => ({ whe_1: "https://hooks.example.com/sports" })[id],
};
const line = (action: string, more: Partial<AuditLine> = {}): AuditLine => ({
  action,
  actor: "ada@example.com",
  actorUserId: "usr_a",
  target: null,
  details: {},
  ...more,
});

describe("the audit log in sentences", () => {
  it("says an invitee who accepted joined, not that they added a member", () => {
    const joined = line("member.added", {
      actor: "victor@example.com",
      actorUserId: null,
      target: "usr_v",
      details: { email: "victor@example.com", role: "viewer" },
    });
    expect(auditSentence(joined, names)).toBe("joined as a viewer");
    const added = line("member.added", {
      actor: "operator (cli)",
      actorUserId: null,
      target: "usr_v",
      details: { email: "victor@example.com", role: "admin" },
    });
    expect(auditSentence(added, names)).toBe("added victor@example.com as an admin");
  });

  it("tells of second factors and the policy in words", () => {
    expect(auditSentence(line("factor.added", { details: { kind: "totp", name: "Phone" } }), names)).toBe(
      "added the authenticator app “Phone” as a second factor",
    );
    expect(auditSentence(line("factor.removed", { details: { kind: "passkey", name: "Laptop" } }), names)).toBe(
      "removed the passkey “Laptop” from their second factors",
    );
    expect(auditSentence(line("factor.recovery_code_used"), names)).toBe("signed in with a recovery code");
    expect(auditSentence(line("user.signed_in", { details: { by: "passkey", passkey: "Laptop" } }), names)).toBe(
      "signed in with the passkey “Laptop”",
    );
    expect(auditSentence(line("user.signed_in", { details: { address: "10.0.0.1" } }), names)).toBe("signed in");
    expect(auditSentence(line("factor.step_up", { details: { method: "passkey" } }), names)).toBe(
      "confirmed it was them with a passkey before a key or member change",
    );
    expect(auditSentence(line("factor.step_up", { details: { method: "totp" } }), names)).toBe(
      "confirmed it was them with a second factor before a key or member change",
    );
    expect(
      auditSentence(line("organisation.second_factor_policy_set", { details: { from: "none", to: "admins" } }), names),
    ).toBe(
      "changed the second-factor policy from “no one is required to use a second factor” to “admins must use a second factor”",
    );
  });

  it("tells of single sign-on in words: its settings, its domains and how each was verified, and its sign-ins", () => {
    const configured = line("sso.configured", {
      details: {
        issuer: "https://login.corp.example",
        clientId: "console",
        joinRole: "viewer",
        requireSso: true,
        secretChanged: true,
      },
    });
    expect(auditSentence(configured, names)).toBe(
      "set up single sign-on through https://login.corp.example (client id console, a new client secret): new members join as a viewer, and members other than admins must sign in through it",
    );
    expect(auditSentence(line("sso.domain_added", { target: "corp.example" }), names)).toBe(
      "claimed the domain corp.example for single sign-on",
    );
    expect(auditSentence(line("sso.domain_verified", { target: "corp.example", details: { by: "dns" } }), names)).toBe(
      "verified the domain corp.example for single sign-on by its DNS record",
    );
    expect(auditSentence(line("sso.domain_removed", { target: "corp.example" }), names)).toBe(
      "removed the domain corp.example from single sign-on",
    );
    expect(auditSentence(line("user.signed_in", { details: { by: "single sign-on" } }), names)).toBe(
      "signed in through single sign-on",
    );
    expect(auditSentence(line("user.signed_in", { details: { by: "mailed link" } }), names)).toBe("signed in");
  });

  it("tells of webhooks in words, naming the endpoint", () => {
    expect(auditSentence(line("webhook.test_sent", { target: "whe_1", details: { delivery: "whd_1" } }), names)).toBe(
      "sent a test message to https://hooks.example.com/sports",
    );
    expect(
      auditSentence(
        line("webhook.created", { target: "whe_1", details: { url: "https://hooks.example.com/sports" } }),
        names,
      ),
    ).toBe("added the webhook endpoint https://hooks.example.com/sports");
    expect(auditSentence(line("usage.thresholds_set", { details: { thresholds: [80, 95, 100] } }), names)).toBe(
      "set the usage alerts at 80 %, 95 %, 100 % of each key's monthly quota",
    );
  });

  it("names keys by name and hint, and sports by their names", () => {
    expect(
      auditSentence(
        line("key.created", { target: "key_1", details: { environment: "sandbox", sport: "ice-hockey" } }),
        names,
      ),
    ).toBe("created the sandbox key “Web app” (svc_sk_…kBaV) for Ice hockey");
    expect(
      auditSentence(
        line("key.updated", { target: "key_1", details: { sports: { from: [], to: ["american-football", "cs2"] } } }),
        names,
      ),
    ).toBe("changed the key “Web app” (svc_sk_…kBaV): its sports from none to American football, Counter-Strike 2");
    expect(
      auditSentence(
        line("key.rolled", { target: "key_1", details: { successor: "key_2", expiresAt: "2026-11-29T17:00:00.000Z" } }),
        names,
      ),
    ).toBe(
      "rolled the key “Web app” (svc_sk_…kBaV) to “Web app” (svc_sk_…Q2x9); the old key works until 2026-11-29 17:00 UTC",
    );
  });

  it("has a sentence for every action, and words for one it does not know, never a dotted code", () => {
    const actions = [
      "organisation.created",
      "member.invited",
      "member.role_changed",
      "member.removed",
      "invitation.revoked",
      "user.signed_in",
      "user.signed_out",
      "user.password_reset",
      "licence.set",
      "licence.verified",
      "licence.rejected",
      "licence.revoked",
      "plan.set",
      "plan.requested",
      "plan.approved",
      "key.revoked",
      "webhook.secret_rotated",
      "webhook.disabled",
      "webhook.enabled",
      "webhook.redelivered",
      "operator.later_action",
    ];
    for (const action of actions) {
      const sentence = auditSentence(
        line(action, { target: "x", details: { reference: "MGA/1", role: "admin", from: "viewer", to: "admin" } }),
        names,
      );
      expect(sentence, action).not.toMatch(/\w\.\w|_/);
    }
  });
});
