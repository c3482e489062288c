import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { consoleSession } from "@/app/console/_lib/auth";
import { PasskeyEnrolment } from "@/components/console/factors/passkeys";
import { TotpEnrolment } from "@/components/console/factors/totp-enrolment";
import { hasPasskey } from "@/lib/accounts/factors/passkeys";
import { currentInstance } from "@/lib/instance";
import { PageHeader } from "@/components/console/page-header";
import { returnPath } from "@/lib/console/return-path";
import { SecondStepForm } from "./second-step-form";

export const metadata: Metadata = { title: "Second step" };

// Where a session that has passed only the password waits: the code, or (when a second factor is
// required and the member has none) adding one. It can reach nothing else.
export default async function SecondStepPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const after = returnPath(next);
  const session = await consoleSession();
  if (!session) redirect(`/console/sign-in?next=${encodeURIComponent(after)}`);
  if (session.stage === "done") redirect(after);
  if (session.stage === "enrol") {
    return (
      <div className="mx-auto max-w-md">
        <PageHeader title="Set up a second factor">
          A second factor is required for your account: add a passkey or an authenticator app to finish signing in.
        </PageHeader>
        <h2 className="mb-2 font-medium text-slate-900">A passkey</h2>
        <PasskeyEnrolment after={after} />
        <h2 className="mt-6 mb-2 font-medium text-slate-900">Or an authenticator app</h2>
        <TotpEnrolment after={after} />
      </div>
    );
  }
  const passkey = await hasPasskey(currentInstance().database.db, session.userId);
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Second step">
        {passkey ? "Use your passkey, or enter" : "Enter"} the code your authenticator app shows, or one of your
        recovery codes.
      </PageHeader>
      <SecondStepForm after={after} passkey={passkey} />
    </div>
  );
}
