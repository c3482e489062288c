"use client";

import { useActionState } from "react";
import { recordLicenceAction } from "@/app/console/actions";
import { Field, FormMessage, SubmitButton } from "@/components/console/form";

export type LicenceValues = {
  reference: string;
  authority: string;
  holder: string;
  territory: string;
  validFrom: string;
  validUntil: string;
};

export function LicenceForm({ current }: { current: LicenceValues | null }) {
  const [state, action] = useActionState(recordLicenceAction, null);
  return (
    <form action={action} className="grid gap-4 sm:grid-cols-2" noValidate>
      <Field name="reference" label="Licence reference" defaultValue={current?.reference} required state={state} />
      <Field name="authority" label="Issuing authority" defaultValue={current?.authority} required state={state} />
      <Field name="holder" label="Holder's legal name" defaultValue={current?.holder} required state={state} />
      <Field name="territory" label="Territory (optional)" defaultValue={current?.territory} state={state} />
      <Field
        name="validFrom"
        label="Valid from"
        type="date"
        hint="Today when left empty."
        defaultValue={current?.validFrom}
        state={state}
      />
      <Field
        name="validUntil"
        label="Valid until"
        type="date"
        defaultValue={current?.validUntil}
        required
        state={state}
      />
      <div className="sm:col-span-2">
        <SubmitButton pendingText="Saving…">{current ? "Save changes" : "Record licence"}</SubmitButton>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
