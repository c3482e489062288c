"use client";

import { useActionState, useId } from "react";
import { approvePlanAction, declinePlanAction } from "@/app/operator/actions";
import { buttonClass, dangerButtonClass, FormMessage, SubmitButton } from "@/components/console/form";
import { ReasonField } from "@/components/operator/reason-field";

export function PlanDecision(props: { orgId: string; organisation: string; plan: string; planName: string }) {
  const [approved, approve] = useActionState(approvePlanAction, null);
  const [declined, decline] = useActionState(declinePlanAction, null);
  const id = useId();
  const named = <span className="sr-only"> {`${props.planName} for ${props.organisation}`}</span>;
  return (
    <div className="mt-4 grid gap-4 lg:grid-cols-2">
      <form action={approve}>
        <input type="hidden" name="orgId" value={props.orgId} />
        {/* The plan shown: a request changed since is not approved unseen. */}
        <input type="hidden" name="plan" value={props.plan} />
        <SubmitButton pendingText="Approving…" className={buttonClass}>
          Approve{named}
        </SubmitButton>
        <FormMessage state={approved} />
      </form>
      <form action={decline} noValidate>
        <input type="hidden" name="orgId" value={props.orgId} />
        <ReasonField id={`${id}-decline`} label="Reason for declining" state={declined} required />
        <SubmitButton pendingText="Declining…" className={`${dangerButtonClass} mt-2`}>
          Decline{named}
        </SubmitButton>
        <FormMessage state={declined} />
      </form>
    </div>
  );
}
