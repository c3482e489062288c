import type { Metadata } from "next";
import Link from "next/link";
import { database } from "@/app/console/_lib/console";
import { PageHeader } from "@/components/console/page-header";
import { now } from "@/lib/clock";
import { findInvitation } from "@/lib/console/members";
import { AcceptForm } from "./accept-form";

export const metadata: Metadata = { title: "Invitation", referrer: "no-referrer" };

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await findInvitation(await database(), token, now());
  if (!invitation) {
    return (
      <div className="mx-auto max-w-md">
        <PageHeader title="Invitation not valid">
          This link was used already, withdrawn, or has expired. Ask an admin of your organisation for a new one.
        </PageHeader>
        <Link href="/console/sign-in" className="text-pitch-700 underline underline-offset-4">
          Sign in
        </Link>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title={`Join ${invitation.organisationName}`}>
        You are invited as {invitation.role === "admin" ? "an admin" : "a viewer"}. Choose your name and password; the
        link works once.
      </PageHeader>
      <AcceptForm token={token} />
    </div>
  );
}
