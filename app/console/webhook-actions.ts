"use server";
// The Webhooks page's server actions: one-line adapters to lib/console/webhooks, which checks the
// membership, the role and the input.
import { now } from "@/lib/clock";
import type { ActionState } from "@/lib/console/actions";
import {
  addWebhookFor,
  redeliverFor,
  rotateWebhookSecretFor,
  sendWebhookTestFor,
  setThresholdsFor,
  setWebhookEnabledFor,
  type ShownOnceSecret,
} from "@/lib/console/webhooks";
import { currentInstance } from "@/lib/instance";
import { runAction } from "./_lib/console";

export async function addWebhookAction(_: unknown, form: FormData): Promise<ActionState<ShownOnceSecret>> {
  const allowPrivate = currentInstance().config.WEBHOOKS_ALLOW_PRIVATE === "1";
  return runAction(form, "Endpoint added.", (db, user, fields, sessionId) =>
    addWebhookFor(db, user, fields, { at: now(), allowPrivate, sessionId }),
  );
}

export async function rotateWebhookSecretAction(_: unknown, form: FormData): Promise<ActionState<ShownOnceSecret>> {
  return runAction(
    form,
    "Secret rotated: messages are signed with the new one from now on, and with the old one too for 24 hours while your receiver changes over.",
    (db, user, fields) => rotateWebhookSecretFor(db, user, fields, { at: now() }),
  );
}

export async function setWebhookEnabledAction(_: unknown, form: FormData) {
  return runAction(form, form.get("enabled") === "1" ? "Endpoint enabled." : "Endpoint disabled.", (db, user, fields) =>
    setWebhookEnabledFor(db, user, fields, { at: now() }),
  );
}

export async function sendWebhookTestAction(_: unknown, form: FormData) {
  return runAction(form, "Test message queued: it appears in the log below.", (db, user, fields) =>
    sendWebhookTestFor(db, user, fields, { at: now() }),
  );
}

export async function redeliverAction(_: unknown, form: FormData) {
  return runAction(form, "Sending again.", (db, user, fields) => redeliverFor(db, user, fields, { at: now() }));
}

export async function setThresholdsAction(_: unknown, form: FormData) {
  const state = await runAction(form, "Thresholds saved.", (db, user, fields) =>
    setThresholdsFor(db, user, fields, { at: now() }),
  );
  // This instance judges keys by them at once; the others read them within half a minute.
  if (state && "ok" in state) await currentInstance().webhooks.thresholdsChanged();
  return state;
}
