"use client";

import { useActionState, useId } from "react";
import { openIncidentAction, updateIncidentAction } from "@/app/operator/actions";
import { Field, FormMessage, inputClass, SubmitButton } from "@/components/console/form";

const labelClass = "block text-sm font-medium text-slate-900 dark:text-slate-100";
const PARTS = [
  ["api", "REST API"],
  ["streams", "Streams"],
  ["console", "Console"],
] as const;
const STATES = ["investigating", "identified", "monitoring"] as const;

function StateSelect({ id, defaultValue, resolvable }: { id: string; defaultValue: string; resolvable?: boolean }) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        State
      </label>
      <select id={id} name="state" defaultValue={defaultValue} className={inputClass}>
        {[...STATES, ...(resolvable ? (["resolved"] as const) : [])].map((state) => (
          <option key={state} value={state}>
            {state}
          </option>
        ))}
      </select>
    </div>
  );
}

function TextBox({ id, label }: { id: string; label: string }) {
  return (
    <div className="sm:col-span-2">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <textarea id={id} name="text" rows={3} maxLength={2000} className={inputClass} />
    </div>
  );
}

export function OpenIncidentForm() {
  const [state, action] = useActionState(openIncidentAction, null);
  const id = useId();
  return (
    <form action={action} className="grid gap-4 sm:grid-cols-2" noValidate>
      <div className="sm:col-span-2">
        <Field name="title" label="Title" required state={state} maxLength={200} />
      </div>
      <fieldset className="sm:col-span-2">
        <legend className={labelClass}>Affected</legend>
        <div className="mt-1 flex flex-wrap gap-x-5 gap-y-2">
          {PARTS.map(([code, label]) => (
            <label key={code} className="inline-flex min-h-11 items-center gap-2 text-slate-900 dark:text-slate-100">
              <input type="checkbox" name={`component:${code}`} className="h-5 w-5" />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      <Field
        name="feeds"
        label="Sports' feeds (optional)"
        hint="Comma-separated sports, such as soccer,tennis"
        state={state}
      />
      <StateSelect id={`${id}-state`} defaultValue="investigating" />
      <TextBox id={`${id}-text`} label="First update" />
      <div className="sm:col-span-2">
        <SubmitButton pendingText="Opening…">Open incident</SubmitButton>
        <FormMessage state={state} />
      </div>
    </form>
  );
}

export function UpdateIncidentForm({ incidentId, state }: { incidentId: string; state: string }) {
  const [result, action] = useActionState(updateIncidentAction, null);
  const id = useId();
  return (
    <form action={action} className="mt-4 grid gap-4 sm:grid-cols-2" noValidate>
      <input type="hidden" name="incidentId" value={incidentId} />
      <StateSelect id={`${id}-state`} defaultValue={state} resolvable />
      <TextBox id={`${id}-text`} label="Update" />
      <div className="sm:col-span-2">
        <SubmitButton pendingText="Posting…">Post update</SubmitButton>
        <FormMessage state={result} />
      </div>
    </form>
  );
}
