import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { sessionUserId } from "@/app/console/_lib/auth";
import { PageHeader } from "@/components/console/page-header";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string }> }) {
  if (await sessionUserId()) redirect("/console");
  const { error } = await searchParams;
  // next-auth redirects here with ?error= when sign-in fails without JavaScript.
  const initialError = error
    ? error === "CredentialsSignin"
      ? "Wrong e-mail or password."
      : error.slice(0, 200)
    : null;
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Sign in to the console">
        Manage your organisation&apos;s licence, plan, API keys and members.
      </PageHeader>
      <SignInForm initialError={initialError} />
      <p className="mt-6 text-sm text-slate-700">
        New here?{" "}
        <Link href="/console/sign-up" className="text-pitch-700 underline underline-offset-4">
          Create an organisation
        </Link>
        . Invited by a colleague? Open the link they gave you.
      </p>
    </div>
  );
}
