import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/console/page-header";
import { ForgotForm } from "./forgot-form";

export const metadata: Metadata = { title: "Forgot your password" };

export default function ForgotPasswordPage() {
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Forgot your password">
        Give the e-mail address you sign in with: we send it a link to choose a new password.
      </PageHeader>
      <ForgotForm />
      <p className="mt-6 text-sm text-slate-700">
        Remembered it?{" "}
        <Link href="/console/sign-in" className="text-pitch-700 underline underline-offset-4">
          Sign in
        </Link>
        .
      </p>
    </div>
  );
}
