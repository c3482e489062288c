"use client";

import { useActionState } from "react";
import { choosePlanAction } from "@/app/console/actions";
import { FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";

export function PlanChoice({ code, name, current }: { code: string; name: string; current: boolean }) {
  const [state, action] = useActionState(choosePlanAction, null);
  if (current) return <span className="font-medium text-pitch-900">Your plan</span>;
  return (
    <form action={action}>
      <input type="hidden" name="plan" value={code} />
      <SubmitButton pendingText="Choosing…" className={secondaryButtonClass}>
        Choose {name}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
