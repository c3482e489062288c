import { Field } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

/** The fields of a new account, the same wherever one is made (sign-up, an accepted invitation). */
export function AccountFields({ state }: { state: ActionState<unknown> }) {
  return (
    <>
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
    </>
  );
}
