"use client";

import { sportNames } from "@/lib/sports";
import { useActionState, useRef, useState } from "react";
import { revokeKeyAction } from "@/app/console/actions";
import { dangerButtonClass, FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";
import { formatNumber } from "@/components/console/format";
import type { RolledKeyShown } from "@/lib/console/actions";
import { shownKeyState } from "@/lib/keys/states";
import { KeySettings } from "./key-settings";
import { RollKey } from "./roll-key";
import { ShowOnce } from "./show-once";
import { Time } from "@/components/display-settings";

export type KeyRow = {
  id: string;
  name: string | null;
  hint: string;
  environment: "sandbox" | "production";
  sports: string[];
  sportScope: string[] | null;
  allowedIps: string[] | null;
  replacedBy: string | null;
  replaces: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  status: "active" | "revoked" | "expired";
  requestsUsed: number;
  requestsQuota: number | null;
  /** The key's own lower limits inside the organisation's pool; null: the plan's. */
  ownMonthlyQuota: number | null;
  ownRequestsPerSecond: number | null;
};

/** How a person names a key: its name, if it has one, and always its hint (a rolled key's successor shares the name). */
export function keyLabel(row: { name: string | null; hint: string }): string {
  return row.name ? `“${row.name}” (${row.hint})` : row.hint;
}

const STATUS_STYLE = {
  active: "bg-pitch-50 text-pitch-900 border-pitch-600",
  expiring: "bg-amber-50 text-amber-950 border-amber-500",
  revoked: "bg-red-50 text-red-900 border-red-300",
  expired: "bg-slate-100 text-slate-800 border-slate-400",
};

export function KeyList({
  keys,
  canEdit,
  planSports,
  at,
}: {
  keys: KeyRow[];
  canEdit: boolean;
  planSports: string[];
  /** The time the page was read at (ms), so server and browser render the same states. */
  at: number;
}) {
  const hints = new Map(keys.map((k) => [k.id, k.hint]));
  // The successor of a key just rolled, shown once here: the rolled key's own item changes at once.
  const [rolled, setRolled] = useState<RolledKeyShown | null>(null);
  return (
    <section aria-labelledby="key-list-title" className="mt-8">
      <h2 id="key-list-title" className="text-lg font-semibold text-slate-900">
        Your keys
      </h2>
      {rolled ? (
        <div className="mt-3">
          <ShowOnce created={rolled} onDone={() => setRolled(null)}>
            The key it replaces, {rolled.predecessorHint}, keeps working until <Time at={rolled.predecessorExpiresAt} />
            .
          </ShowOnce>
        </div>
      ) : null}
      {keys.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700">No keys yet.</p>
      ) : (
        <ul className="mt-3 space-y-3" data-testid="key-list">
          {keys.map((key) => (
            <KeyItem
              key={key.id}
              row={key}
              canEdit={canEdit}
              planSports={planSports}
              state={shownKeyState(key, at)}
              hints={hints}
              onRolled={setRolled}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function UsageBar({ used, quota }: { used: number; quota: number | null }) {
  const share = quota ? Math.min(1, used / quota) : 0;
  return (
    <div>
      <p className="text-sm text-slate-800">
        {formatNumber(used)}
        {quota ? ` of ${formatNumber(quota)}` : ""} requests this month
      </p>
      <div aria-hidden="true" className="mt-1 h-2 w-full overflow-hidden rounded-full bg-slate-200">
        <div
          className={`h-full rounded-full ${share >= 0.9 ? "bg-red-700" : "bg-pitch-600"}`}
          style={{ width: `${(share * 100).toFixed(1)}%` }}
        />
      </div>
    </div>
  );
}

function KeyItem({
  row,
  canEdit,
  planSports,
  state,
  hints,
  onRolled,
}: {
  row: KeyRow;
  canEdit: boolean;
  planSports: string[];
  state: keyof typeof STATUS_STYLE;
  hints: Map<string, string>;
  onRolled: (rolled: RolledKeyShown) => void;
}) {
  return (
    <li className="rounded-lg border border-slate-300 p-4" data-testid="key-item" data-key-id={row.id}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-mono text-sm font-semibold text-slate-900" data-testid="key-hint">
          {row.hint}
          {row.name ? <span className="ml-2 font-sans font-normal text-slate-700">{row.name}</span> : null}
        </p>
        <span
          className={`rounded-full border px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[state]}`}
          data-testid="key-status"
          data-state={state}
        >
          {state === "expiring" && row.expiresAt ? (
            <>
              expiring at <Time at={row.expiresAt} />
            </>
          ) : (
            state
          )}
        </span>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-600">Environment</dt>
          <dd className="text-slate-900">{row.environment}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Sports</dt>
          <dd className="text-slate-900">
            {sportNames(row.sports) || "—"}
            {row.sportScope ? <span className="text-slate-600"> (scope)</span> : null}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Created</dt>
          <dd className="text-slate-900">
            <Time at={row.createdAt} style="day" />
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Last used</dt>
          <dd className="text-slate-900">{row.lastUsedAt ? <Time at={row.lastUsedAt} /> : "never"}</dd>
        </div>
        {row.expiresAt ? (
          <div>
            <dt className="text-slate-600">{row.status === "expired" ? "Expired" : "Expires"}</dt>
            <dd className="text-slate-900">
              <Time at={row.expiresAt} />
            </dd>
          </div>
        ) : null}
        {row.revokedAt ? (
          <div>
            <dt className="text-slate-600">Revoked</dt>
            <dd className="text-slate-900">
              <Time at={row.revokedAt} />
            </dd>
          </div>
        ) : null}
        {row.allowedIps ? (
          <div>
            <dt className="text-slate-600">From</dt>
            <dd className="font-mono text-slate-900 break-all">{row.allowedIps.join(", ")}</dd>
          </div>
        ) : null}
        {row.ownMonthlyQuota !== null || row.ownRequestsPerSecond !== null ? (
          <div>
            <dt className="text-slate-600">Own limits</dt>
            <dd className="text-slate-900" data-testid="own-limits">
              {[
                row.ownMonthlyQuota !== null ? `${formatNumber(row.ownMonthlyQuota)} a month` : null,
                row.ownRequestsPerSecond !== null ? `${formatNumber(row.ownRequestsPerSecond)} a second` : null,
              ]
                .filter(Boolean)
                .join(", ")}
            </dd>
          </div>
        ) : null}
        {row.replacedBy ? (
          <div>
            <dt className="text-slate-600">Rolled to</dt>
            <dd className="font-mono text-slate-900" data-testid="rolled-to">
              {hints.get(row.replacedBy) ?? row.replacedBy}
            </dd>
          </div>
        ) : null}
        {row.replaces ? (
          <div>
            <dt className="text-slate-600">Replaces</dt>
            <dd className="font-mono text-slate-900" data-testid="replaces">
              {hints.get(row.replaces) ?? row.replaces}
            </dd>
          </div>
        ) : null}
      </dl>
      <div className="mt-3">
        <UsageBar used={row.requestsUsed} quota={row.requestsQuota} />
      </div>
      {canEdit && row.status === "active" ? (
        <div className="mt-3 flex flex-wrap gap-2">
          <KeySettings row={row} planSports={planSports} />
          {row.environment === "production" && !row.replacedBy ? <RollKey row={row} onRolled={onRolled} /> : null}
        </div>
      ) : null}
      {canEdit && row.status !== "revoked" ? <RevokeKey row={row} /> : null}
    </li>
  );
}

/** Revoking asks first, in a modal dialog (focus held inside, Escape cancels). */
function RevokeKey({ row }: { row: KeyRow }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action] = useActionState(async (previous: unknown, form: FormData) => {
    const result = await revokeKeyAction(previous, form);
    dialog.current?.close();
    return result;
  }, null);
  const titleId = `revoke-title-${row.id}`;
  return (
    <div className="mt-3">
      <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.showModal()}>
        Revoke…<span className="sr-only"> key {keyLabel(row)}</span>
      </button>
      <FormMessage state={state} />
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg p-5 backdrop:bg-slate-900/50"
      >
        <h3 id={titleId} className="text-lg font-semibold text-slate-900">
          Revoke {keyLabel(row)}?
        </h3>
        <p className="mt-2 text-sm text-slate-800">
          Its very next request is refused, on every server. Requests already counted this month are not given back.
          This cannot be undone.
        </p>
        <form action={action} className="mt-4 flex flex-wrap justify-end gap-2">
          <input type="hidden" name="keyId" value={row.id} />
          <button type="button" className={secondaryButtonClass} onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <SubmitButton pendingText="Revoking…" className={dangerButtonClass}>
            Revoke key
          </SubmitButton>
        </form>
      </dialog>
    </div>
  );
}
