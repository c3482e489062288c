"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useActionState } from "react";
import type { ActionState } from "@/lib/console/actions";

/** Signs in through next-auth's credentials endpoint; returns a message for people on failure. */
export async function signInWithCredentials(email: string, password: string): Promise<string | null> {
  const result = await signIn("credentials", { email, password, redirect: false });
  if (result?.ok && !result.error) return null;
  if (!result?.error || result.error === "CredentialsSignin") return "Wrong e-mail or password.";
  return result.error;
}

type AccountAction = (previous: ActionState<unknown>, form: FormData) => Promise<ActionState<unknown>>;

/**
 * The state of a form whose action creates an account (sign-up, an accepted invitation) and that
 * then signs the new user in and opens the console. `created` names what was made, for the
 * message when the account exists but signing in failed.
 */
export function useCreateThenSignIn(createAccount: AccountAction, created: string) {
  const router = useRouter();
  return useActionState<ActionState<unknown>, FormData>(async (previous, form) => {
    const result = await createAccount(previous, form);
    if (!result || "error" in result) return result;
    const error = await signInWithCredentials(String(form.get("email")), String(form.get("password")));
    if (error) return { error: `${created} was created, but signing in failed: ${error}` };
    router.replace("/console");
    router.refresh();
    return result;
  }, null);
}
