import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/console/page-header";
import { SignUpForm } from "./sign-up-form";

export const metadata: Metadata = { title: "Create an organisation" };

export default function SignUpPage() {
  return (
    <div className="mx-auto max-w-md">
      <PageHeader title="Create an organisation">
        You become its first admin. Then take a sandbox key to start building, and record your licence and choose a plan
        for production keys.
      </PageHeader>
      <SignUpForm />
      <p className="mt-6 text-sm text-slate-700">
        Already have an account?{" "}
        <Link href="/console/sign-in" className="text-pitch-700 underline underline-offset-4">
          Sign in
        </Link>
        .
      </p>
    </div>
  );
}
