"use client";

import { useState } from "react";
import { inputClass, secondaryButtonClass } from "@/components/console/form";

/**
 * "Sign in with SSO": the address (or its domain) leads to the organisation's own provider. The
 * server answers the provider's URL and the browser goes there; the provider sends it back to
 * /api/sso/callback, which opens the session.
 */
export function SsoSignIn({ after, initialError }: { after: string; initialError: string | null }) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  async function start(form: FormData) {
    const email = String(form.get("sso-email") ?? "").trim();
    if (!email) return setError("Enter your work e-mail address, or your organisation's domain.");
    setPending(true);
    setError(null);
    try {
      const answer = await fetch("/api/sso/start", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, next: after }),
      });
      const body = (await answer.json().catch(() => ({}))) as { url?: string; detail?: string };
      if (answer.ok && body.url) return window.location.assign(body.url);
      setError(body.detail ?? "Single sign-on could not start. Try again in a minute.");
    } catch {
      setError("Single sign-on could not start. Try again in a minute.");
    }
    setPending(false);
  }
  // Folded unless a refusal is shown; its words avoid "Sign in" and "E-mail", which name the password form's controls.
  return (
    <details open={initialError !== null} className="mt-8 border-t border-slate-200 pt-6" data-testid="sso-sign-in">
      <summary className="cursor-pointer text-base font-semibold text-slate-900">Single sign-on (SSO)</summary>
      <p className="mt-2 text-sm text-slate-700">
        Your organisation signs in through its own provider? Enter your work address or its domain.
      </p>
      <form action={start} className="mt-3 space-y-3" noValidate>
        <label htmlFor="sso-email" className="block text-sm font-medium text-slate-800">
          Work address or domain
        </label>
        <input
          id="sso-email"
          name="sso-email"
          type="text"
          inputMode="email"
          autoComplete="username"
          className={inputClass}
          aria-describedby={error ? "sso-error" : undefined}
        />
        <button type="submit" className={secondaryButtonClass} disabled={pending}>
          {pending ? "Going to your provider…" : "Continue with SSO"}
        </button>
        {error ? (
          <p id="sso-error" role="alert" className="text-sm text-red-700">
            {error}
          </p>
        ) : null}
      </form>
    </details>
  );
}
