"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import { createProductionKeyAction } from "@/app/console/actions";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";
import { KeyCreationSection } from "./show-once";

export function ProductionKeySection(props: { canEdit: boolean; blockers: string[] }) {
  const [round, setRound] = useState(0);
  return <ProductionKeyForm key={round} {...props} onDone={() => setRound((r) => r + 1)} />;
}

function ProductionKeyForm({
  canEdit,
  blockers,
  onDone,
}: {
  canEdit: boolean;
  blockers: string[];
  onDone: () => void;
}) {
  const [state, action] = useActionState(createProductionKeyAction, null);
  const created = state && "ok" in state ? state.data : null;
  return (
    <KeyCreationSection name="production" title="Production keys" created={created} onDone={onDone}>
      {blockers.length > 0 ? (
        <div className="mt-2 text-sm text-slate-800" data-testid="production-blockers">
          <p>
            Production keys need a licence verified by an operator and in force, and a plan; while they are missing,
            existing production keys are refused. Missing:
          </p>
          <ul className="mt-2 list-disc space-y-1 pl-5">
            {blockers.map((b) => (
              <li key={b}>{b}</li>
            ))}
          </ul>
          <p className="mt-2">
            <Link href="/console/licence" className="text-pitch-700 underline">
              Licence
            </Link>{" "}
            ·{" "}
            <Link href="/console/plan" className="text-pitch-700 underline">
              Plan
            </Link>
          </p>
        </div>
      ) : canEdit ? (
        <form action={action} className="mt-2 space-y-3">
          <p className="text-sm text-slate-800">Real time, the sports and limits of your plan. As many as you need.</p>
          <Field
            name="name"
            label="Name (optional)"
            hint="To tell your keys apart, e.g. “Web app”."
            maxLength={80}
            state={state}
          />
          <SubmitButton pendingText="Creating…">Create production key</SubmitButton>
          <FormMessage state={state} />
        </form>
      ) : (
        <p className="mt-2 text-sm text-slate-800">
          Your organisation can have production keys; an admin creates them.
        </p>
      )}
    </KeyCreationSection>
  );
}
