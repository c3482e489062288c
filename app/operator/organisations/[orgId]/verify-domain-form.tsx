"use client";

import { useActionState } from "react";
import { verifySsoDomainAction } from "@/app/operator/actions";
import { FormMessage, SubmitButton, secondaryButtonClass } from "@/components/console/form";

/** Verifies an organisation's single sign-on domain on the operator's word, where its DNS cannot be checked. */
export function VerifyDomainForm({ orgId, domain }: { orgId: string; domain: string }) {
  const [state, action] = useActionState(verifySsoDomainAction, null);
  return (
    <form action={action} className="mt-1">
      <input type="hidden" name="orgId" value={orgId} />
      <input type="hidden" name="domain" value={domain} />
      <SubmitButton pendingText="Verifying…" className={secondaryButtonClass}>
        Verify domain <span className="sr-only">{domain}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
