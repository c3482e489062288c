"use client";

import { useActionState } from "react";
import { forgotPasswordAction } from "@/app/console/account-actions";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export function ForgotForm() {
  const [state, action] = useActionState(forgotPasswordAction, null);
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="email" label="E-mail" type="email" autoComplete="username" required state={state} />
      <SubmitButton pendingText="Sending…">Send the link</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
