"use client";

import { useActionState, useId } from "react";
import { rejectLicenceAction, revokeLicenceAction, verifyLicenceAction } from "@/app/operator/actions";
import { buttonClass, dangerButtonClass, FormMessage, SubmitButton } from "@/components/console/form";
import { ReasonField } from "@/components/operator/reason-field";

type Props = {
  orgId: string;
  organisation: string;
  reference: string;
  /** The version shown: a decision on a record changed since is refused. */
  version: number;
  verification: "pending" | "verified" | "rejected" | "revoked";
};

function Shown({ orgId, version }: { orgId: string; version: number }) {
  return (
    <>
      <input type="hidden" name="orgId" value={orgId} />
      <input type="hidden" name="version" value={version} />
    </>
  );
}

/** Verify or reject a pending record; revoke a verified one. A rejected or revoked one waits for the organisation. */
export function LicenceDecision(props: Props) {
  const [verified, verify] = useActionState(verifyLicenceAction, null);
  const [rejected, reject] = useActionState(rejectLicenceAction, null);
  const [revoked, revoke] = useActionState(revokeLicenceAction, null);
  const id = useId();
  const named = <span className="sr-only"> {`${props.reference} of ${props.organisation}`}</span>;
  if (props.verification === "pending") {
    return (
      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <form action={verify}>
          <Shown {...props} />
          <SubmitButton pendingText="Verifying…" className={buttonClass}>
            Verify{named}
          </SubmitButton>
          <FormMessage state={verified} />
        </form>
        <form action={reject} noValidate>
          <Shown {...props} />
          <ReasonField id={`${id}-reject`} label="Reason for rejecting" state={rejected} required />
          <SubmitButton pendingText="Rejecting…" className={`${dangerButtonClass} mt-2`}>
            Reject{named}
          </SubmitButton>
          <FormMessage state={rejected} />
        </form>
      </div>
    );
  }
  if (props.verification === "verified") {
    return (
      <form action={revoke} className="mt-4 max-w-xl" noValidate>
        {/* Just verified here: said so above the one decision left. */}
        {verified && "ok" in verified ? <FormMessage state={verified} /> : null}
        <Shown {...props} />
        <ReasonField id={`${id}-revoke`} label="Reason for revoking (shown to the organisation)" state={revoked} />
        <SubmitButton pendingText="Revoking…" className={`${dangerButtonClass} mt-2`}>
          Revoke{named}
        </SubmitButton>
        <FormMessage state={revoked} />
      </form>
    );
  }
  return (
    <>
      <p className="mt-4 text-sm text-slate-700 dark:text-slate-300">
        Waits for the organisation to record it again; a new record comes here as pending.
      </p>
      {/* What was said when it was decided, while this page stays open. */}
      <FormMessage state={revoked ?? rejected} />
    </>
  );
}
