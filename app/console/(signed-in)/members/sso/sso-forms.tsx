"use client";

import { useActionState } from "react";
import {
  addSsoDomainAction,
  removeSsoDomainAction,
  saveSsoConnectionAction,
  verifySsoDomainAction,
} from "@/app/console/sso-actions";
import { Field, FormMessage, SubmitButton, inputClass, secondaryButtonClass } from "@/components/console/form";

export type ConnectionShown = {
  issuer: string;
  clientId: string;
  joinRole: "admin" | "viewer";
  requireSso: boolean;
} | null;

/** The provider's settings; the client secret is never shown again, and an empty field keeps it. */
export function ConnectionForm({ connection }: { connection: ConnectionShown }) {
  const [state, action] = useActionState(saveSsoConnectionAction, null);
  return (
    <form action={action} className="space-y-4" noValidate>
      <Field name="issuer" label="Issuer URL" type="url" required state={state} defaultValue={connection?.issuer} />
      <Field name="clientId" label="Client id" required state={state} defaultValue={connection?.clientId} />
      <Field
        name="clientSecret"
        label={connection ? "Client secret (leave empty to keep the stored one)" : "Client secret"}
        type="password"
        autoComplete="off"
        required={!connection}
        state={state}
      />
      <div>
        <label htmlFor="joinRole" className="block text-sm font-medium text-slate-800">
          New members join as
        </label>
        <select id="joinRole" name="joinRole" defaultValue={connection?.joinRole ?? "viewer"} className={inputClass}>
          <option value="viewer">Viewer</option>
          <option value="admin">Admin</option>
        </select>
      </div>
      <label className="flex items-start gap-2 text-sm text-slate-800">
        <input type="checkbox" name="requireSso" defaultChecked={connection?.requireSso} className="mt-1 h-4 w-4" />
        <span>
          Require SSO: members with an address in a verified domain cannot sign in with a password. Admins keep their
          password, with a second factor, to get in if the provider fails.
        </span>
      </label>
      <SubmitButton pendingText="Checking the provider…">Save single sign-on</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function AddDomainForm() {
  const [state, action] = useActionState(addSsoDomainAction, null);
  return (
    <form action={action} className="flex flex-wrap items-end gap-3" noValidate>
      <div className="min-w-56 flex-1">
        <Field name="domain" label="E-mail domain" required state={state} placeholder="example.com" />
      </div>
      <SubmitButton pendingText="Adding…">Add domain</SubmitButton>
      <div className="w-full">
        <FormMessage state={state} />
      </div>
    </form>
  );
}

export function VerifyDomainForm({ domain }: { domain: string }) {
  const [state, action] = useActionState(verifySsoDomainAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="domain" value={domain} />
      <SubmitButton pendingText="Checking…" className={secondaryButtonClass}>
        Check the DNS record <span className="sr-only">of {domain}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function RemoveDomainForm({ domain }: { domain: string }) {
  const [state, action] = useActionState(removeSsoDomainAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="domain" value={domain} />
      <SubmitButton pendingText="Removing…" className={secondaryButtonClass}>
        Remove <span className="sr-only">{domain}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
