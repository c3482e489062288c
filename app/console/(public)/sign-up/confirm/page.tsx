import type { Metadata } from "next";
import Link from "next/link";
import { database } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { INVALID_SIGN_UP_LINK } from "@/lib/accounts/mail/sign-up";
import { tokenUsable } from "@/lib/accounts/mail/tokens";
import { now } from "@/lib/clock";
import { ConfirmForm } from "./confirm-form";

export const metadata: Metadata = { title: "Confirm your sign-up", referrer: "no-referrer" };

// Opening the link changes nothing (mail scanners open links): the button does.
export default async function ConfirmSignUpPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const token = String((await searchParams).token ?? "");
  if (!(await tokenUsable(await database(), "sign_up", token, now()))) {
    return (
      <div className="mx-auto max-w-md">
        <PageHeader title="Link not valid">{INVALID_SIGN_UP_LINK}</PageHeader>
        <Link href="/console/sign-up" className="text-pitch-700 underline underline-offset-4">
          Sign up
        </Link>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Confirm your sign-up">
        Your address is confirmed. Create the organisation to become its first admin and open the console.
      </PageHeader>
      <ConfirmForm token={token} />
    </div>
  );
}
