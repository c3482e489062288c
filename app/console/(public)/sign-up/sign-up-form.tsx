"use client";

import { signUpAction } from "@/app/console/actions";
import { useCreateThenSignIn } from "@/components/console/sign-in-after";
import { AccountFields } from "@/components/console/account-fields";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export function SignUpForm() {
  const [state, action] = useCreateThenSignIn(signUpAction, "Your organisation");
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="organisation" label="Organisation name" autoComplete="organization" required state={state} />
      <AccountFields state={state} />
      <SubmitButton pendingText="Creating…">Create organisation</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
