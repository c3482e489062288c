import "#server-only";
import type { Database } from "../../db/index.ts";
import { MAIL_ORIGIN } from "./links.ts";
import { alertAdmins } from "./notices.ts";

// Alerts by mail to an organisation's admins, queued in the transaction of what they tell of. Those
// queued off a request (the worker's scans) link to MAIL_ORIGIN, which the mail worker fills in.

type WebhookEvent = { orgId: string; type: string; at: Date; data: Record<string, unknown> };

const keyName = (data: Record<string, unknown>) =>
  `${String(data.environment ?? "")} key ${data.key_name ? `"${String(data.key_name)}" ` : ""}(…${String(data.key_hint ?? "")})`.trim();

/** The mail alert of a webhook event: usage thresholds, a key expiring in 7 days, a key revoked. */
export async function alertOfEvent(tx: Database, event: WebhookEvent): Promise<void> {
  const context = { at: event.at, origin: MAIL_ORIGIN };
  const d = event.data;
  switch (event.type) {
    case "usage.threshold_reached":
      if (d.scope === "organisation") {
        await alertAdmins(
          tx,
          event.orgId,
          {
            topic: "usage",
            subject: `Your organisation reached ${String(d.threshold_percent)} % of its monthly quota`,
            paragraphs: [
              `Your organisation's keys and members' reads have made ${String(d.requests_used)} of the plan's ${String(d.requests_quota)} requests for ${String(d.month)}, which they share.`,
              `The count starts again on ${String(d.resets_at).slice(0, 10)}; a bigger plan raises the quota.`,
            ],
            link: { url: `${MAIL_ORIGIN}/console/usage`, label: "See the usage" },
          },
          context,
        );
        return;
      }
      await alertAdmins(
        tx,
        event.orgId,
        {
          topic: "usage",
          subject: `A key reached ${String(d.threshold_percent)} % of its monthly quota`,
          paragraphs: [
            `The ${keyName(d)} has made ${String(d.requests_used)} of its ${String(d.requests_quota)} requests for ${String(d.month)}.`,
            `The count starts again on ${String(d.resets_at).slice(0, 10)}; a bigger plan raises the quota.`,
          ],
          link: { url: `${MAIL_ORIGIN}/console/usage`, label: "See the usage" },
        },
        context,
      );
      return;
    case "key.expiring":
      await alertAdmins(
        tx,
        event.orgId,
        {
          topic: "keys",
          subject: "A key expires within 7 days",
          paragraphs: [
            `The ${keyName(d)} expires at ${String(d.expires_at).slice(0, 16).replace("T", " ")} UTC; requests with it are refused after that.`,
          ],
          link: { url: `${MAIL_ORIGIN}/console/keys`, label: "Roll or replace it" },
        },
        context,
      );
      return;
    case "key.revoked":
      await alertAdmins(
        tx,
        event.orgId,
        {
          topic: "keys",
          subject: "A key was revoked",
          paragraphs: [`The ${keyName(d)} was revoked: requests with it are refused from now on.`],
          link: { url: `${MAIL_ORIGIN}/console/keys`, label: "See the keys" },
        },
        context,
      );
      return;
  }
}

const LICENCE_WORDS: Record<string, string> = {
  verified: "was verified: production keys work from now on.",
  rejected: "was rejected: production keys stay off until a corrected record is verified.",
  revoked: "was revoked: production keys are refused from now on.",
};

/** The licence was verified, rejected or revoked by an operator. */
export async function licenceAlert(
  tx: Database,
  orgId: string,
  licence: { reference: string; verification: string; reason: string | null },
  at: Date,
): Promise<void> {
  await alertAdmins(
    tx,
    orgId,
    {
      topic: "licence",
      subject: `Your licence was ${licence.verification}`,
      paragraphs: [
        `The licence ${licence.reference} ${LICENCE_WORDS[licence.verification] ?? licence.verification}`,
        ...(licence.reason ? [`The operator's reason: ${licence.reason}`] : []),
      ],
      link: { url: `${MAIL_ORIGIN}/console/licence`, label: "See the licence" },
    },
    { at, origin: MAIL_ORIGIN },
  );
}
