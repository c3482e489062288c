"use client";

import { signIn } from "next-auth/react";

/** Signs in through next-auth's credentials endpoint; returns a message for people on failure. */
export async function signInWithCredentials(email: string, password: string): Promise<string | null> {
  const result = await signIn("credentials", { email, password, redirect: false });
  if (result?.ok && !result.error) return null;
  if (!result?.error || result.error === "CredentialsSignin") return "Wrong e-mail or password.";
  return result.error;
}
