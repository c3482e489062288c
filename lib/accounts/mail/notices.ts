import "#server-only";
import { createHash } from "node:crypto";
import { and, eq, notInArray } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { knownSignIns, mailPreferences, memberships, users } from "../../db/schema/index.ts";
import { mailLinks } from "./links.ts";
import { alertMessage, securityNotice } from "./messages.ts";
import { queueMail } from "./outbox.ts";

type Context = { at: Date; origin: string };

// Security notices go to the member whatever their settings; alerts go to the organisation's admins
// who have not turned their topic off.

export async function passwordChangedNotice(tx: Database, member: { userId: string; email: string }, context: Context) {
  await queueMail(
    tx,
    securityNotice(member.email, {
      subject: "Your password was changed",
      paragraphs: [
        `The password of your account was changed at ${stamp(context.at)}, and every session was signed out.`,
        "If this was not you, reset your password now and tell your organisation's admin.",
      ],
      link: { url: mailLinks.forgotPassword(context.origin), label: "Reset your password" },
    }),
    context.at,
  );
}

/** A second factor was added or removed (called by the second factors' code). */
export async function factorChangedNotice(
  tx: Database,
  member: { email: string },
  change: { change: "added" | "removed"; factor: string },
  context: Context,
) {
  await queueMail(
    tx,
    securityNotice(member.email, {
      subject: `A second factor was ${change.change}`,
      paragraphs: [
        `${change.factor} was ${change.change} ${change.change === "added" ? "to" : "from"} your account at ${stamp(context.at)}.`,
        "If this was not you, reset your password now and tell your organisation's admin.",
      ],
      link: { url: mailLinks.forgotPassword(context.origin), label: "Reset your password" },
    }),
    context.at,
  );
}

/** The member's recovery codes were replaced, or an operator removed every second factor. */
export async function factorsReplacedNotice(
  tx: Database,
  member: { email: string },
  kind: "recovery_codes_replaced" | "factors_reset_by_operator",
  context: Context,
) {
  const what =
    kind === "recovery_codes_replaced"
      ? "A new set of recovery codes was made for your account, and the old set no longer works"
      : "An operator of the service removed every second factor of your account, at your organisation's request";
  await queueMail(
    tx,
    securityNotice(member.email, {
      subject: kind === "recovery_codes_replaced" ? "New recovery codes" : "Your second factors were reset",
      paragraphs: [
        `${what} (${stamp(context.at)}).`,
        "If this was not you, reset your password now and tell your organisation's admin.",
      ],
      link: { url: mailLinks.forgotPassword(context.origin), label: "Reset your password" },
    }),
    context.at,
  );
}

/**
 * Remembers the network and browser a member signed in from, and tells them by mail when it is a
 * new one (never on their first sign-in, when every one is new).
 */
export async function noticeSignIn(
  db: Database,
  member: { userId: string; email: string },
  client: { network: string; userAgent: string },
  context: Context,
): Promise<boolean> {
  const fingerprint = createHash("sha256").update(`${client.network}\n${client.userAgent}`).digest("base64url");
  return db.transaction(async (tx) => {
    const known = await tx
      .select({ fingerprint: knownSignIns.fingerprint })
      .from(knownSignIns)
      .where(eq(knownSignIns.userId, member.userId));
    await tx
      .insert(knownSignIns)
      .values({ userId: member.userId, fingerprint, lastAt: context.at })
      .onConflictDoUpdate({ target: [knownSignIns.userId, knownSignIns.fingerprint], set: { lastAt: context.at } });
    if (known.length === 0 || known.some((row) => row.fingerprint === fingerprint)) return false;
    await queueMail(
      tx,
      securityNotice(member.email, {
        subject: "A sign-in from a new device or network",
        paragraphs: [
          `Your account was signed in to at ${stamp(context.at)} from a device or network it had not used before (network ${client.network}; ${client.userAgent.slice(0, 120) || "no browser named"}).`,
          "If this was you, there is nothing to do. If not, reset your password now: that signs out every session.",
        ],
        link: { url: mailLinks.forgotPassword(context.origin), label: "Reset your password" },
      }),
      context.at,
    );
    return true;
  });
}

/** The alerts a member can turn off on the settings page. */
export const ALERT_TOPICS = {
  usage: "Usage thresholds reached",
  keys: "Keys expiring in 7 days and keys revoked",
  licence: "Licence verified, rejected, revoked or about to lapse",
  webhooks: "A webhook endpoint disabled after failing",
} as const;
export type AlertTopic = keyof typeof ALERT_TOPICS;

/** Queues an alert to each admin of the organisation who has the topic on. */
export async function alertAdmins(
  tx: Database,
  orgId: string,
  alert: { topic: AlertTopic; subject: string; paragraphs: string[]; link?: { url: string; label: string } },
  context: Context,
): Promise<number> {
  const off = tx
    .select({ userId: mailPreferences.userId })
    .from(mailPreferences)
    .where(eq(mailPreferences.topic, alert.topic));
  const admins = await tx
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "admin"), notInArray(users.id, off)));
  for (const admin of admins) {
    await queueMail(
      tx,
      alertMessage(admin.email, { ...alert, settingsUrl: mailLinks.settings(context.origin) }),
      context.at,
    );
  }
  return admins.length;
}

/** A webhook endpoint was disabled after failing (called where endpoints are disabled). */
export function webhookEndpointDisabledAlert(tx: Database, endpoint: { orgId: string; url: string }, context: Context) {
  return alertAdmins(
    tx,
    endpoint.orgId,
    {
      topic: "webhooks",
      subject: "A webhook endpoint was disabled",
      paragraphs: [
        `The endpoint ${endpoint.url} failed too often and was disabled at ${stamp(context.at)}: nothing is posted to it until an admin enables it again.`,
      ],
      link: { url: `${context.origin}/console/webhooks`, label: "See the webhook endpoints" },
    },
    context,
  );
}

/** The topics a member turned off. */
export async function alertsOff(db: Database, userId: string): Promise<AlertTopic[]> {
  const rows = await db
    .select({ topic: mailPreferences.topic })
    .from(mailPreferences)
    .where(eq(mailPreferences.userId, userId));
  return rows.map((row) => row.topic as AlertTopic).filter((topic) => topic in ALERT_TOPICS);
}

/** Sets which alert topics a member receives: every topic not in `on` is turned off. */
export async function setAlertsOn(db: Database, userId: string, on: AlertTopic[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(mailPreferences).where(eq(mailPreferences.userId, userId));
    const off = (Object.keys(ALERT_TOPICS) as AlertTopic[]).filter((topic) => !on.includes(topic));
    if (off.length > 0) await tx.insert(mailPreferences).values(off.map((topic) => ({ userId, topic })));
  });
}

const stamp = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The settings page's form: each topic's checkbox (`alert-<topic>`), for the member signed in. */
export async function saveAlertSettings(db: Database, userId: string, fields: Record<string, string>): Promise<null> {
  const on = (Object.keys(ALERT_TOPICS) as AlertTopic[]).filter((topic) => fields[`alert-${topic}`] === "on");
  await setAlertsOn(db, userId, on);
  return null;
}
