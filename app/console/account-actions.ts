"use server";
// Before sign-in: sign-up and a forgotten password, both answered through the mail.
import { confirmSignUp, requestSignUp, SIGN_UP_ANSWER } from "@/lib/accounts/mail/sign-up";
import { requestPasswordReset, RESET_ANSWER, resetPasswordWithLink } from "@/lib/accounts/mail/password-reset";
import { now } from "@/lib/clock";
import { formFields, formValues, toActionState, type ActionState } from "@/lib/console/actions";
import { admitSignUp } from "@/lib/accounts/sign-up-limits";
import { signUpInput } from "@/lib/console/members";
import { database } from "./_lib/console";
import { publicOrigin, requestAddress } from "./_lib/origin";

export async function signUpAction(_: unknown, form: FormData): Promise<ActionState<null>> {
  const db = await database();
  const address = await requestAddress();
  const origin = await publicOrigin();
  const state = await toActionState(
    SIGN_UP_ANSWER,
    async () => {
      // Only a valid form is counted: invalid posts cost nothing, so they must not use up the limits.
      const fields = signUpInput.parse(formFields(form));
      await admitSignUp(db, address, now());
      await requestSignUp(db, fields, { at: now(), origin });
      return null;
    },
    formValues(form),
  );
  return state;
}

export async function confirmSignUpAction(_: unknown, form: FormData): Promise<ActionState<{ grant: string }>> {
  const db = await database();
  return toActionState("Organisation created.", async () => {
    const { grant } = await confirmSignUp(db, String(form.get("token") ?? ""), now());
    return { grant };
  });
}

export async function forgotPasswordAction(_: unknown, form: FormData): Promise<ActionState<null>> {
  const db = await database();
  const address = await requestAddress();
  const origin = await publicOrigin();
  const state = await toActionState(
    RESET_ANSWER,
    async () => {
      await requestPasswordReset(db, { email: String(form.get("email") ?? ""), address }, { at: now(), origin });
      return null;
    },
    formValues(form),
  );
  return state;
}

export async function resetPasswordAction(_: unknown, form: FormData): Promise<ActionState<{ grant: string }>> {
  const db = await database();
  const origin = await publicOrigin();
  const state = await toActionState("Password changed.", async () => {
    const { grant } = await resetPasswordWithLink(db, formFields(form) as never, { at: now(), origin });
    return { grant };
  });
  return state;
}
