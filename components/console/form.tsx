"use client";

import { useFormStatus } from "react-dom";
import type { ActionState } from "@/lib/console/actions";
import { StepUpForm } from "./factors/step-up";

export const inputClass =
  "mt-1 block w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 focus:border-pitch-700 focus:outline-2 focus:outline-pitch-600 aria-invalid:border-red-700";

export const buttonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-pitch-700 px-4 py-2 font-medium text-white hover:bg-pitch-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-pitch-600 disabled:cursor-not-allowed disabled:bg-slate-500";

export const secondaryButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-slate-400 bg-white px-4 py-2 font-medium text-slate-900 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-pitch-600";

export const dangerButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-red-700 px-4 py-2 font-medium text-white hover:bg-red-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:bg-slate-500";

/** A submit button that says it is working while its form's action runs. */
export function SubmitButton({
  children,
  pendingText,
  className = buttonClass,
}: {
  children: React.ReactNode;
  pendingText: string;
  className?: string;
}) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" className={className} disabled={pending} aria-disabled={pending}>
      {pending ? pendingText : children}
    </button>
  );
}

/** The outcome of the last submission, announced to screen readers. */
export function FormMessage({ state }: { state: ActionState<unknown> }) {
  if (!state) return null;
  if ("error" in state) {
    return (
      <>
        <p role="alert" className="mt-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {state.error}
        </p>
        {/* A change that asks for a recent second factor: the code here, then the change again. */}
        {state.stepUp ? <StepUpForm /> : null}
      </>
    );
  }
  return (
    <p role="status" className="mt-3 rounded-md border border-pitch-600 bg-pitch-50 p-3 text-sm text-pitch-900">
      {state.ok}
    </p>
  );
}

export type FieldProps = {
  /** Unnamed (then with an `id`), a field is not sent with the form it stands in. */
  name?: string;
  label: string;
  hint?: string;
  state?: ActionState<unknown>;
} & React.InputHTMLAttributes<HTMLInputElement>;

/** A labelled input with its validation message tied to it for assistive technology. */
export function Field({ name, label, hint, state, id: givenId, ...input }: FieldProps) {
  const refused = state && "error" in state ? state : null;
  const error = name === undefined ? undefined : refused?.fieldErrors?.[name];
  // After a refusal, what was typed (React empties the form after its action); never a password.
  const typed =
    name !== undefined && input.type !== "password" && input.value === undefined ? refused?.values?.[name] : undefined;
  const id = givenId ?? `field-${name}`;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        {label}
      </label>
      {hint ? (
        <p id={`${id}-hint`} className="text-sm text-slate-600">
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        name={name}
        className={inputClass}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...input}
        {...(typed !== undefined ? { defaultValue: typed } : {})}
      />
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-red-800">
          {error}
        </p>
      ) : null}
    </div>
  );
}
