"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import { createSandboxKeyAction } from "@/app/console/actions";
import { FormMessage, inputClass, SubmitButton } from "@/components/console/form";
import { formatDay } from "@/components/console/format";
import { KeyCreationSection } from "./show-once";

type Existing = { hint: string; sport: string; createdAt: string; expiresAt: string | null; status: string };

export function SandboxSection(props: {
  canEdit: boolean;
  sports: { code: string; name: string }[];
  existing: Existing | null;
}) {
  // A new round remounts the form, which drops the action's state and with it the shown key.
  const [round, setRound] = useState(0);
  return <SandboxOffer key={round} {...props} onDone={() => setRound((r) => r + 1)} />;
}

function SandboxOffer({
  canEdit,
  sports,
  existing,
  onDone,
}: {
  canEdit: boolean;
  sports: { code: string; name: string }[];
  existing: Existing | null;
  onDone: () => void;
}) {
  const [state, action] = useActionState(createSandboxKeyAction, null);
  const created = state && "ok" in state ? state.data : null;
  const sportName = (code: string) => sports.find((s) => s.code === code)?.name ?? code;
  return (
    <KeyCreationSection name="sandbox" title="Sandbox key" created={created} onDone={onDone}>
      {existing ? (
        <div className="mt-2 space-y-2 text-sm text-slate-800" data-testid="sandbox-explanation">
          <p>
            Your organisation&apos;s sandbox key <code className="rounded bg-slate-100 px-1">{existing.hint}</code>{" "}
            covers {sportName(existing.sport)}. It was created on {formatDay(existing.createdAt)} and{" "}
            {existing.status === "expired" ? "expired" : "expires"} on{" "}
            <strong data-testid="sandbox-expiry">{formatDay(existing.expiresAt)}</strong>
            {existing.status === "revoked" ? "; it has been revoked" : ""}.
          </p>
          <p>
            Each organisation gets one sandbox key, ever, so there is no offer of another. For real-time data and more
            sports, record your{" "}
            <Link href="/console/licence" className="text-pitch-700 underline">
              licence
            </Link>
            , choose a{" "}
            <Link href="/console/plan" className="text-pitch-700 underline">
              plan
            </Link>{" "}
            and create production keys.
          </p>
        </div>
      ) : canEdit ? (
        <form action={action} className="mt-2 space-y-3">
          <p className="text-sm text-slate-800">
            One per organisation, ever: one sport, the feed 60 seconds behind, 1,000 requests a month, valid 30 days.
          </p>
          <div>
            <label htmlFor="sandbox-sport" className="block text-sm font-medium text-slate-900">
              Sport
            </label>
            <select id="sandbox-sport" name="sport" required defaultValue="" className={inputClass}>
              <option value="" disabled>
                Choose its one sport
              </option>
              {sports.map((s) => (
                <option key={s.code} value={s.code}>
                  {s.name}
                </option>
              ))}
            </select>
          </div>
          <SubmitButton pendingText="Creating…">Create sandbox key</SubmitButton>
          <FormMessage state={state} />
        </form>
      ) : (
        <p className="mt-2 text-sm text-slate-800">No sandbox key yet; an admin can create it.</p>
      )}
    </KeyCreationSection>
  );
}
