"use client";

import { Field, type FieldProps } from "../form";

/**
 * Where a second factor's code is typed: six digits from an authenticator app, or with `recovery` a
 * recovery code as well (letters too, so not the numeric keyboard). In a form it is the field `code`;
 * the step-up, shown inside another form, gives an `id` instead so that form does not send it.
 */
export function CodeField({
  recovery = false,
  ...field
}: { recovery?: boolean; label: string } & Omit<FieldProps, "inputMode" | "autoComplete">) {
  return (
    <Field
      name={field.id === undefined ? "code" : undefined}
      inputMode={recovery ? undefined : "numeric"}
      autoComplete="one-time-code"
      {...field}
    />
  );
}
