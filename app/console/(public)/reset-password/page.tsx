import type { Metadata } from "next";
import Link from "next/link";
import { database } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { INVALID_RESET_LINK } from "@/lib/accounts/mail/password-reset";
import { tokenUsable } from "@/lib/accounts/mail/tokens";
import { now } from "@/lib/clock";
import { ResetForm } from "./reset-form";

export const metadata: Metadata = { title: "Choose a new password", referrer: "no-referrer" };

export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const token = String((await searchParams).token ?? "");
  if (!(await tokenUsable(await database(), "password_reset", token, now()))) {
    return (
      <div className="mx-auto max-w-md">
        <PageHeader title="Link not valid">{INVALID_RESET_LINK}</PageHeader>
        <Link href="/console/forgot-password" className="text-pitch-700 underline underline-offset-4">
          Ask for a new link
        </Link>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Choose a new password">
        Setting it signs you out everywhere else, and signs you in here.
      </PageHeader>
      <ResetForm token={token} />
    </div>
  );
}
