"use client";

import { useActionState, useRef } from "react";
import { choosePlanAction, requestPlanAction } from "@/app/console/actions";
import { buttonClass, FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";

/** A plan as the confirmation tells it: each figure as people read it. */
export type PlanTerms = {
  name: string;
  sports: string;
  quota: string;
  perSecond: string;
  streams: string;
  price: string;
};

export function PlanChoice({
  code,
  terms,
  currentTerms,
  current,
  onRequest,
  requested,
}: {
  code: string;
  terms: PlanTerms;
  /** The organisation's plan now, to say what changes; null without one. */
  currentTerms: PlanTerms | null;
  current: boolean;
  /** Priced on request: asked for here, started by an operator's approval. */
  onRequest: boolean;
  requested: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action] = useActionState(async (previous: unknown, form: FormData) => {
    const result = await (onRequest ? requestPlanAction : choosePlanAction)(previous, form);
    dialog.current?.close();
    return result;
  }, null);
  if (current) return <span className="font-medium text-pitch-900">Your plan</span>;
  if (requested) return <span className="font-medium text-amber-900">Requested: awaiting approval</span>;
  const name = terms.name;
  const titleId = `plan-${code}-title`;
  const rows: [string, keyof PlanTerms][] = [
    ["Sports", "sports"],
    ["Monthly quota", "quota"],
    ["Requests per second", "perSecond"],
    ["Concurrent streams", "streams"],
    ["Price", "price"],
  ];
  return (
    <div>
      {/* Choosing a plan changes what every production key may do, and its price: it is confirmed first. */}
      <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.showModal()}>
        {onRequest ? (
          <>
            Request approval<span className="sr-only"> for {name}</span>
          </>
        ) : (
          `Choose ${name}`
        )}
      </button>
      <FormMessage state={state} />
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg bg-white p-5 text-slate-900 backdrop:bg-slate-900/50"
      >
        <h3 id={titleId} className="text-lg font-semibold text-slate-900">
          {onRequest ? `Request ${name}?` : `Switch to ${name}?`}
        </h3>
        <p className="mt-2 text-sm text-slate-800">
          {onRequest
            ? `${name} is priced on request: an operator approves it, and it starts then. Until then nothing changes.`
            : `${name} applies at once to your organisation's production keys, and is billed ${terms.price}.`}
        </p>
        <table className="mt-3 w-full text-left text-sm" data-testid="plan-change">
          <caption className="sr-only">What changes</caption>
          <thead>
            <tr className="border-b border-slate-300 text-slate-700">
              <th scope="col" className="py-1 pr-3 font-medium">
                <span className="sr-only">Term</span>
              </th>
              <th scope="col" className="py-1 pr-3 font-medium">
                Now{currentTerms ? ` (${currentTerms.name})` : ""}
              </th>
              <th scope="col" className="py-1 font-medium">
                With {name}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, key]) => (
              <tr key={key} className="border-b border-slate-200">
                <th scope="row" className="py-1 pr-3 font-medium">
                  {label}
                </th>
                <td className="py-1 pr-3">{currentTerms ? currentTerms[key] : "—"}</td>
                <td className="py-1 font-semibold">{terms[key]}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <form action={action} className="mt-4 flex flex-wrap justify-end gap-2">
          <input type="hidden" name="plan" value={code} />
          <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <SubmitButton pendingText={onRequest ? "Requesting…" : "Choosing…"} className={buttonClass}>
            {onRequest ? `Request ${name}` : `Choose ${name} for ${terms.price}`}
          </SubmitButton>
        </form>
      </dialog>
    </div>
  );
}
