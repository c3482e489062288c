"use client";

import { useActionState } from "react";
import { saveMailSettingsAction } from "@/app/console/actions";
import { FormMessage, SubmitButton } from "@/components/console/form";

export function MailSettingsForm({ topics }: { topics: { topic: string; label: string; on: boolean }[] }) {
  const [state, action] = useActionState(saveMailSettingsAction, null);
  return (
    <form action={action} className="space-y-4">
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium text-slate-900">Mail me when</legend>
        {topics.map(({ topic, label, on }) => (
          <label key={topic} className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" name={`alert-${topic}`} defaultChecked={on} className="h-4 w-4" />
            {label}
          </label>
        ))}
      </fieldset>
      <SubmitButton pendingText="Saving…">Save</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
