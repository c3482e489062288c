"use client";

import { useActionState } from "react";
import { choosePlanAction, requestPlanAction } from "@/app/console/actions";
import { FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";

export function PlanChoice({
  code,
  name,
  current,
  onRequest,
  requested,
}: {
  code: string;
  name: string;
  current: boolean;
  /** Priced on request: asked for here, started by an operator's approval. */
  onRequest: boolean;
  requested: boolean;
}) {
  const [state, action] = useActionState(onRequest ? requestPlanAction : choosePlanAction, null);
  if (current) return <span className="font-medium text-pitch-900">Your plan</span>;
  if (requested) return <span className="font-medium text-amber-900">Requested: awaiting approval</span>;
  return (
    <form action={action}>
      <input type="hidden" name="plan" value={code} />
      <SubmitButton pendingText={onRequest ? "Requesting…" : "Choosing…"} className={secondaryButtonClass}>
        {onRequest ? (
          <>
            Request approval<span className="sr-only"> for {name}</span>
          </>
        ) : (
          `Choose ${name}`
        )}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
