"use client";

import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { signUpAction } from "@/app/console/actions";
import { signInWithCredentials } from "@/components/console/sign-in-after";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

export function SignUpForm() {
  const router = useRouter();
  const [state, action] = useActionState<ActionState<unknown>, FormData>(async (previous, form) => {
    const created = await signUpAction(previous, form);
    if (!created || "error" in created) return created;
    const error = await signInWithCredentials(String(form.get("email")), String(form.get("password")));
    if (error) return { error: `Your organisation was created, but signing in failed: ${error}` };
    router.replace("/console");
    router.refresh();
    return created;
  }, null);
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="organisation" label="Organisation name" autoComplete="organization" required state={state} />
      <Field name="name" label="Your name" autoComplete="name" required state={state} />
      <Field name="email" label="E-mail" type="email" autoComplete="username" required state={state} />
      <Field
        name="password"
        label="Password"
        type="password"
        autoComplete="new-password"
        hint="At least 12 characters."
        required
        state={state}
      />
      <SubmitButton pendingText="Creating…">Create organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
