"use client";

import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { signInWithCredentials } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

export function SignInForm({ initialError, after }: { initialError: string | null; after: string }) {
  const router = useRouter();
  const [state, action] = useActionState<ActionState, FormData>(
    async (_previous, form) => {
      const error = await signInWithCredentials(String(form.get("email") ?? ""), String(form.get("password") ?? ""));
      if (error) return { error };
      router.replace(after);
      router.refresh();
      return { ok: "Signed in.", data: null };
    },
    initialError ? { error: initialError } : null,
  );
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="email" label="E-mail" type="email" autoComplete="username" required />
      <Field name="password" label="Password" type="password" autoComplete="current-password" required />
      <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
