import type { Metadata } from "next";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { ALERT_TOPICS, alertsOff, type AlertTopic } from "@/lib/accounts/mail/notices";
import { MailSettingsForm } from "./mail-settings-form";

export const metadata: Metadata = { title: "Mail settings" };

export default async function SettingsPage() {
  const { db, access } = await requireConsole();
  const off = await alertsOff(db, access.user.id);
  const topics = (Object.keys(ALERT_TOPICS) as AlertTopic[]).map((topic) => ({
    topic,
    label: ALERT_TOPICS[topic],
    on: !off.includes(topic),
  }));
  return (
    <>
      <PageHeader title="Mail settings">
        The alerts mailed to {access.user.email}
        {access.role === "admin" ? "" : " (alerts go to admins: they reach you if you become one)"}. Notices about your
        account&apos;s security (a password changed, a sign-in from a new device) are always sent.
      </PageHeader>
      <MailSettingsForm topics={topics} />
    </>
  );
}
