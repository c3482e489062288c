"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useActionState } from "react";
import type { ActionState } from "@/lib/console/actions";

type GrantAction = (previous: ActionState<unknown>, form: FormData) => Promise<ActionState<{ grant: string }>>;

/**
 * The state of a form opened from a mailed link (a sign-up to confirm, a password to reset) whose
 * action returns a single-use grant: the browser signs in with it and opens the console.
 */
export function useGrantThenSignIn(action: GrantAction, done: string) {
  const router = useRouter();
  return useActionState<ActionState<unknown>, FormData>(async (previous, form) => {
    const result = await action(previous, form);
    if (!result || "error" in result) return result;
    const signedIn = await signIn("mail-link", { grant: result.data.grant, redirect: false });
    if (!signedIn?.ok || signedIn.error)
      return { error: `${done}, but signing in failed: sign in with your password.` };
    router.replace("/console");
    router.refresh();
    return result;
  }, null);
}
