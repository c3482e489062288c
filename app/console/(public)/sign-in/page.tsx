import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { consoleSession } from "@/app/console/_lib/auth";
import { PageHeader } from "@/components/console/page-header";
import { returnPath, signInErrorMessage } from "@/lib/console/return-path";
import { SECOND_STEP_PAGE } from "@/app/console/_lib/console";
import { PasskeySignIn } from "@/components/console/factors/passkeys";
import { SignInForm } from "./sign-in-form";
import { SsoSignIn } from "./sso-sign-in";
import { ssoRefusalMessage } from "@/lib/accounts/sso/refusals";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; next?: string; sso?: string }>;
}) {
  const { error, next, sso } = await searchParams;
  const after = returnPath(next);
  const session = await consoleSession();
  if (session?.stage === "done") redirect(after);
  // Past the password, the second step is what is left.
  if (session) redirect(`${SECOND_STEP_PAGE}?next=${encodeURIComponent(after)}`);
  // next-auth redirects here with ?error= when sign-in fails without JavaScript; only its known
  // codes are shown, as our own words, since anyone can link here with any text.
  const initialError = signInErrorMessage(error);
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Sign in to the console">
        Manage your organisation&apos;s licence, plan, API keys and members.
      </PageHeader>
      <SignInForm initialError={initialError} after={after} />
      <p className="mt-4 text-sm text-slate-700">
        <Link href="/console/forgot-password" className="text-pitch-700 underline underline-offset-4">
          Forgot your password?
        </Link>
      </p>
      <div className="mt-6 border-t border-slate-300 pt-4">
        <PasskeySignIn after={after} />
      </div>
      <SsoSignIn after={after} initialError={ssoRefusalMessage(sso)} />
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
