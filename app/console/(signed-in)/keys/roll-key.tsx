"use client";

import { useActionState, useRef } from "react";
import { rollKeyAction } from "@/app/console/actions";
import { FormMessage, inputClass, secondaryButtonClass, SubmitButton } from "@/components/console/form";
import type { RolledKeyShown } from "@/lib/console/actions";
import { keyLabel, type KeyRow } from "./key-list";

// How long the old key keeps working: from an hour (a quick swap) to a week (many deployments).
const OVERLAPS = [
  { seconds: 3_600, label: "1 hour" },
  { seconds: 6 * 3_600, label: "6 hours" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 3 * 86_400, label: "3 days" },
  { seconds: 7 * 86_400, label: "7 days" },
];

/**
 * Rolling asks first, in a modal dialog, with the overlap to choose. The new key goes to
 * `onRolled`, which shows it once above the list: this item changes as soon as the key is rolled.
 */
export function RollKey({ row, onRolled }: { row: KeyRow; onRolled: (rolled: RolledKeyShown) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action] = useActionState(async (previous: unknown, form: FormData) => {
    const result = await rollKeyAction(previous, form);
    if (result && "ok" in result) {
      dialog.current?.close();
      onRolled(result.data);
    }
    return result;
  }, null);
  const id = (part: string) => `roll-${row.id}-${part}`;
  return (
    <div>
      <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.showModal()}>
        Roll…<span className="sr-only"> key {keyLabel(row)}</span>
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={id("title")}
        className="m-auto w-[min(30rem,calc(100vw-2rem))] rounded-lg p-5 backdrop:bg-slate-900/50"
      >
        <h3 id={id("title")} className="text-lg font-semibold text-slate-900">
          Roll {keyLabel(row)}?
        </h3>
        <p className="mt-2 text-sm text-slate-800">
          A new key is created with the same name, sports and IP allowlist, and shown once. This key keeps working until
          the overlap ends, so you can put the new one in place first; then it expires.
        </p>
        <form action={action} className="mt-4 space-y-4">
          <input type="hidden" name="keyId" value={row.id} />
          <div>
            <label htmlFor={id("overlap")} className="block text-sm font-medium text-slate-900">
              Keep this key working for
            </label>
            <select
              id={id("overlap")}
              name="overlapSeconds"
              defaultValue={state && "error" in state ? (state.values?.overlapSeconds ?? "86400") : "86400"}
              className={inputClass}
            >
              {OVERLAPS.map((overlap) => (
                <option key={overlap.seconds} value={overlap.seconds}>
                  {overlap.label}
                </option>
              ))}
            </select>
          </div>
          {state && "error" in state ? <FormMessage state={state} /> : null}
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <SubmitButton pendingText="Rolling…">Roll key</SubmitButton>
          </div>
        </form>
      </dialog>
    </div>
  );
}
