"use client";

import { useRouter } from "next/navigation";
import { useActionState, useState } from "react";
import { signInWithCredentials } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

/** What is missing from the form, by field; nothing is sent while anything is. */
function missingFields(email: string, password: string): Record<string, string> | null {
  const errors: Record<string, string> = {};
  if (!email.trim()) errors.email = "Enter your e-mail address";
  else if (!email.includes("@")) errors.email = "Enter a valid e-mail address";
  if (!password) errors.password = "Enter your password";
  return Object.keys(errors).length > 0 ? errors : null;
}

export function SignInForm({ initialError, after }: { initialError: string | null; after: string }) {
  const router = useRouter();
  // Controlled, so that the e-mail survives a failed attempt (React empties a form after its action).
  const [email, setEmail] = useState("");
  const [state, action] = useActionState<ActionState, FormData>(
    async (_previous, form) => {
      const password = String(form.get("password") ?? "");
      const fieldErrors = missingFields(email, password);
      if (fieldErrors) return { error: "Check the marked fields.", fieldErrors };
      const error = await signInWithCredentials(email.trim(), password);
      if (error) return { error };
      router.replace(after);
      router.refresh();
      return { ok: "Signed in.", data: null };
    },
    initialError ? { error: initialError } : null,
  );
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field
        name="email"
        label="E-mail"
        type="email"
        autoComplete="username"
        required
        state={state}
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <Field name="password" label="Password" type="password" autoComplete="current-password" required state={state} />
      <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
