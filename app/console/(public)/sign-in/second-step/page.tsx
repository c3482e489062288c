import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { consoleSession } from "@/app/console/_lib/auth";
import { TotpEnrolment } from "@/components/console/factors/totp-enrolment";
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
          A second factor is required for your account: add an authenticator app to finish signing in.
        </PageHeader>
        <TotpEnrolment after={after} />
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Second step">
        Enter the code your authenticator app shows, or one of your recovery codes.
      </PageHeader>
      <SecondStepForm after={after} />
    </div>
  );
}
