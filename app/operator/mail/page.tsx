import type { Metadata } from "next";
import { deskMetadata, requireDesk } from "@/app/operator/_lib/desk";
import { Time } from "@/components/display-settings";
import { PageHeader } from "@/components/console/page-header";
import { Badge, deskText, type Tone } from "@/components/operator/desk";
import { listMail } from "@/lib/accounts/mail/outbox";
import { currentInstance } from "@/lib/instance";
import { ResendButton } from "./resend-button";

export const generateMetadata = (): Promise<Metadata> => deskMetadata("Mail");

const TONE: Record<string, Tone> = { pending: "waiting", sent: "good", failed: "bad", kept: "neutral" };
const STATE_TEXT: Record<string, string> = {
  pending: "waiting to be sent",
  sent: "sent",
  failed: "failed: given up",
  kept: "kept: no mail server",
};

export default async function DeskMailPage() {
  const { db } = await requireDesk();
  const messages = await listMail(db, { limit: 100 });
  const sending = currentInstance().mail.sending;
  return (
    <>
      <PageHeader title="Mail">
        The outbox, newest first: every message the service sends, with what became of it; kept 30 days.{" "}
        {sending
          ? "Messages go to the mail server MAIL_URL names; failed ones can be sent again."
          : "No mail server is set (MAIL_URL): messages are kept here, with their links, for you to pass on."}
      </PageHeader>
      {messages.length === 0 ? (
        <p className={deskText.muted}>No mail yet.</p>
      ) : (
        <ol
          className="divide-y divide-slate-200 border-y border-slate-200 dark:divide-slate-700 dark:border-slate-700"
          data-testid="outbox"
        >
          {messages.map((message) => (
            <li key={message.id} className="py-3 text-sm" data-testid="outbox-message" data-state={message.state}>
              <p className={`break-words ${deskText.strong}`}>
                <span className="font-medium">{message.subject}</span> to {message.recipient}{" "}
                <Badge tone={TONE[message.state] ?? "neutral"}>{STATE_TEXT[message.state] ?? message.state}</Badge>
              </p>
              <p className={deskText.muted}>
                Queued <Time at={message.createdAt} />
                {message.sentAt ? (
                  <>
                    {", sent "}
                    <Time at={message.sentAt} />
                  </>
                ) : null}
                {` · ${message.attempts} attempt${message.attempts === 1 ? "" : "s"}`}
                {message.lastResult ? ` · last: ${message.lastResult}` : ""}
              </p>
              {message.state === "kept" && message.link ? (
                <p className={`break-all font-mono text-xs ${deskText.muted}`} data-testid="outbox-link">
                  {message.link}
                </p>
              ) : null}
              {message.state === "failed" || (sending && message.state === "kept") ? (
                <ResendButton messageId={message.id} />
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
