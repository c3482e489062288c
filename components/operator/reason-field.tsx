import { inputClass } from "@/components/console/form";
import type { ActionState } from "@/lib/console/actions";

/**
 * A reason's text box, with an id of its own: several decisions' forms share a page, so the
 * console's Field (ids from the field's name) would repeat ids.
 */
export function ReasonField({
  id,
  label,
  state,
  required,
}: {
  id: string;
  label: string;
  state: ActionState<unknown>;
  required?: boolean;
}) {
  const error = state && "error" in state ? state.fieldErrors?.reason : undefined;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900 dark:text-slate-100">
        {label}
      </label>
      <input
        id={id}
        name="reason"
        className={inputClass}
        required={required}
        maxLength={500}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-red-800 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
