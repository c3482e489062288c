"use client";

import { sportName } from "@/lib/sports";
import { useActionState, useRef } from "react";
import { updateKeyAction } from "@/app/console/actions";
import { FormMessage, inputClass, secondaryButtonClass, SubmitButton } from "@/components/console/form";
import { keyLabel, type KeyRow } from "./key-list";

/** A time as a `datetime-local` value in UTC, to the minute (what the field shows and sends back). */
export function utcFieldValue(iso: string | null): string {
  return iso ? iso.slice(0, 16) : "";
}

/**
 * A key's settings in a modal dialog: the form always carries every setting, so an emptied field
 * clears it. Ids carry the key's id: the list holds one dialog per key.
 */
export function KeySettings({ row, planSports }: { row: KeyRow; planSports: string[] }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action] = useActionState(async (previous: unknown, form: FormData) => {
    const result = await updateKeyAction(previous, form);
    if (result && "ok" in result) dialog.current?.close();
    return result;
  }, null);
  const id = (field: string) => `key-${row.id}-${field}`;
  const refused = state && "error" in state ? state : null;
  const fieldError = (field: string) => refused?.fieldErrors?.[field];
  // After a refusal, what was typed, not the key's settings: React empties the form after its action.
  const typed = refused?.values;
  const production = row.environment === "production";
  const shownExpiry = utcFieldValue(row.expiresAt);
  return (
    // Its parts are the buttons row's own: the saved message goes below the row, not between its buttons.
    <div className="contents">
      <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.showModal()}>
        Settings…<span className="sr-only"> of key {keyLabel(row)}</span>
      </button>
      {state && "ok" in state ? (
        <div className="order-last basis-full" data-testid="key-settings-saved">
          <FormMessage state={state} />
        </div>
      ) : null}
      <dialog
        ref={dialog}
        aria-labelledby={id("settings-title")}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg p-5 backdrop:bg-slate-900/50"
      >
        <h3 id={id("settings-title")} className="text-lg font-semibold text-slate-900">
          Settings of {keyLabel(row)}
        </h3>
        <form action={action} className="mt-4 space-y-4">
          <input type="hidden" name="keyId" value={row.id} />
          <div>
            <label htmlFor={id("name")} className="block text-sm font-medium text-slate-900">
              Name
            </label>
            <input
              id={id("name")}
              name="name"
              defaultValue={typed ? (typed.name ?? "") : (row.name ?? "")}
              maxLength={80}
              className={inputClass}
              aria-invalid={fieldError("name") ? true : undefined}
              aria-describedby={fieldError("name") ? id("name-error") : undefined}
            />
            {fieldError("name") ? (
              <p id={id("name-error")} className="mt-1 text-sm text-red-800">
                {fieldError("name")}
              </p>
            ) : null}
          </div>
          {production ? (
            <>
              <fieldset>
                <legend className="text-sm font-medium text-slate-900">Sports</legend>
                <p className="text-sm text-slate-600">
                  A subset of your plan&rsquo;s; none ticked means all of them, as the plan changes.
                </p>
                <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
                  {planSports.map((sport) => (
                    <label key={sport} className="flex min-h-11 items-center gap-2 text-sm text-slate-900">
                      <input
                        type="checkbox"
                        name={`sport:${sport}`}
                        defaultChecked={typed ? `sport:${sport}` in typed : (row.sportScope?.includes(sport) ?? false)}
                        className="size-5"
                      />
                      {sportName(sport)}
                    </label>
                  ))}
                </div>
              </fieldset>
              <div>
                <label htmlFor={id("allowed-ips")} className="block text-sm font-medium text-slate-900">
                  IP allowlist (optional)
                </label>
                <p id={id("allowed-ips-hint")} className="text-sm text-slate-600">
                  Networks in CIDR notation, IPv4 or IPv6, one a line (e.g. 203.0.113.0/24). Empty: any address.
                  Requests from elsewhere are refused with 403 ip_not_allowed.
                </p>
                <textarea
                  id={id("allowed-ips")}
                  name="allowedIps"
                  rows={3}
                  defaultValue={typed ? (typed.allowedIps ?? "") : (row.allowedIps?.join("\n") ?? "")}
                  className={`${inputClass} font-mono`}
                  aria-describedby={
                    [id("allowed-ips-hint"), fieldError("allowedIps") ? id("allowed-ips-error") : null]
                      .filter(Boolean)
                      .join(" ") || undefined
                  }
                  aria-invalid={fieldError("allowedIps") ? true : undefined}
                  spellCheck={false}
                  autoComplete="off"
                />
                {fieldError("allowedIps") ? (
                  <p id={id("allowed-ips-error")} className="mt-1 text-sm text-red-800">
                    {fieldError("allowedIps")}
                  </p>
                ) : null}
              </div>
              <div>
                <label htmlFor={id("expires")} className="block text-sm font-medium text-slate-900">
                  Expires (UTC, optional)
                </label>
                <input
                  id={id("expires")}
                  name="expiresAt"
                  type="datetime-local"
                  defaultValue={typed ? (typed.expiresAt ?? "") : shownExpiry}
                  className={inputClass}
                  aria-invalid={fieldError("expiresAt") ? true : undefined}
                  aria-describedby={fieldError("expiresAt") ? id("expires-error") : undefined}
                />
                {fieldError("expiresAt") ? (
                  <p id={id("expires-error")} className="mt-1 text-sm text-red-800">
                    {fieldError("expiresAt")}
                  </p>
                ) : null}
                <input type="hidden" name="expiresAtShown" value={shownExpiry} />
              </div>
              <fieldset>
                <legend className="text-sm font-medium text-slate-900">Own limits (optional)</legend>
                <p id={id("limits-hint")} className="text-sm text-slate-600">
                  Lower than your plan&rsquo;s, which the organisation&rsquo;s keys share. Empty: the plan&rsquo;s.
                </p>
                <div className="mt-1 grid grid-cols-2 gap-3">
                  {(
                    [
                      ["monthlyQuota", "Requests a month", row.ownMonthlyQuota],
                      ["requestsPerSecond", "Requests a second", row.ownRequestsPerSecond],
                    ] as const
                  ).map(([field, label, value]) => (
                    <div key={field}>
                      <label htmlFor={id(field)} className="block text-sm text-slate-900">
                        {label}
                      </label>
                      <input
                        id={id(field)}
                        name={field}
                        type="number"
                        min={1}
                        step={1}
                        inputMode="numeric"
                        defaultValue={typed ? (typed[field] ?? "") : (value ?? "")}
                        className={inputClass}
                        aria-invalid={fieldError(field) ? true : undefined}
                        aria-describedby={[id("limits-hint"), fieldError(field) ? id(`${field}-error`) : null]
                          .filter(Boolean)
                          .join(" ")}
                      />
                      {fieldError(field) ? (
                        <p id={id(`${field}-error`)} className="mt-1 text-sm text-red-800">
                          {fieldError(field)}
                        </p>
                      ) : null}
                    </div>
                  ))}
                </div>
              </fieldset>
            </>
          ) : null}
          {state && "error" in state ? <FormMessage state={state} /> : null}
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <SubmitButton pendingText="Saving…">Save settings</SubmitButton>
          </div>
        </form>
      </dialog>
    </div>
  );
}
