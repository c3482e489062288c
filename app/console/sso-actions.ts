"use server";
// The single sign-on page's server actions: one-line adapters to lib/console/sso, which checks the
// membership, the role, the plan and the input.
import { authSecret } from "@/lib/accounts/auth/secret";
import { sealingKey } from "@/lib/accounts/factors/sealing";
import { now } from "@/lib/clock";
import type { ActionState } from "@/lib/console/actions";
import { addSsoDomainFor, removeSsoDomainFor, saveSsoConnectionFor, verifySsoDomainFor } from "@/lib/console/sso";
import { currentInstance } from "@/lib/instance";
import { runAction } from "./_lib/console";

const AREA = { area: "/console/members/sso" };

export async function saveSsoConnectionAction(_: unknown, form: FormData): Promise<ActionState> {
  const config = currentInstance().config;
  return runAction(
    form,
    "Single sign-on saved: the provider answered its discovery document.",
    (db, user, fields, sessionId) =>
      saveSsoConnectionFor(db, user, fields, {
        at: now(),
        sessionId,
        key: sealingKey(authSecret(config)),
        access: { allowPrivate: config.SSO_ALLOW_PRIVATE === "1" },
      }),
    AREA,
  );
}

export async function addSsoDomainAction(_: unknown, form: FormData) {
  return runAction(
    form,
    "Domain added: publish its TXT record, then check it.",
    (db, user, fields) => addSsoDomainFor(db, user, fields),
    AREA,
  );
}

export async function verifySsoDomainAction(_: unknown, form: FormData) {
  return runAction(
    form,
    "Domain verified: its addresses sign in through your provider.",
    (db, user, fields) => verifySsoDomainFor(db, user, fields, { at: now() }),
    AREA,
  );
}

export async function removeSsoDomainAction(_: unknown, form: FormData) {
  return runAction(form, "Domain removed.", (db, user, fields) => removeSsoDomainFor(db, user, fields), AREA);
}
