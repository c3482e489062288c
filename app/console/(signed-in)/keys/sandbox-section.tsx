"use client";

import Link from "next/link";
import { useActionState, useState } from "react";
import { createSandboxKeyAction } from "@/app/console/actions";
import { FormMessage, inputClass, SubmitButton } from "@/components/console/form";
import { KeyCreationSection } from "./show-once";
import { Time } from "@/components/display-settings";

type Existing = { hint: string; sport: string; createdAt: string; expiresAt: string | null; status: string };

/** What stands between the organisation and production keys: nothing, or the blockers' codes and messages. */
export type ProductionSteps = { code: string; message: string }[];

export function SandboxSection(props: {
  canEdit: boolean;
  sports: { code: string; name: string }[];
  existing: Existing | null;
  steps: ProductionSteps;
}) {
  // A new round remounts the form, which drops the action's state and with it the shown key.
  const [round, setRound] = useState(0);
  return <SandboxOffer key={round} {...props} onDone={() => setRound((r) => r + 1)} />;
}

function SandboxOffer({
  canEdit,
  sports,
  existing,
  steps,
  onDone,
}: {
  canEdit: boolean;
  sports: { code: string; name: string }[];
  existing: Existing | null;
  steps: ProductionSteps;
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
            covers {sportName(existing.sport)}. It was created on <Time at={existing.createdAt} style="day" /> and{" "}
            {existing.status === "expired" ? "expired" : "expires"} on{" "}
            <strong data-testid="sandbox-expiry">{existing.expiresAt ? <Time at={existing.expiresAt} /> : "—"}</strong>
            {existing.status === "revoked" ? "; it has been revoked" : ""}.
          </p>
          <p data-testid="sandbox-next">
            Each organisation gets one sandbox key, ever, so there is no offer of another. <NextSteps steps={steps} />
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
            <select
              id="sandbox-sport"
              name="sport"
              required
              defaultValue={state && "error" in state ? (state.values?.sport ?? "") : ""}
              className={inputClass}
            >
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

/** The way on to real-time data and more sports, as the organisation stands now. */
function NextSteps({ steps }: { steps: ProductionSteps }) {
  if (steps.length === 0) {
    return (
      <>For real-time data and more sports, your licence is verified and your plan chosen: create production keys.</>
    );
  }
  const link = (href: string, text: string) => (
    <Link href={href} className="text-pitch-700 underline">
      {text}
    </Link>
  );
  const missingLicence = steps.some((step) => step.code === "licence_missing");
  const missingPlan = steps.some((step) => step.code === "plan_missing");
  // A licence recorded and not (or no longer) in force says itself what is to be done.
  const licence = steps.find((step) => step.code !== "licence_missing" && step.code !== "plan_missing");
  return (
    <>
      {missingLicence || missingPlan ? (
        <>
          For real-time data and more sports,{" "}
          {missingLicence ? <>record your {link("/console/licence", "licence")}</> : null}
          {missingLicence && missingPlan ? " and " : null}
          {missingPlan ? <>choose a {link("/console/plan", "plan")}</> : null}, then create production keys.{" "}
        </>
      ) : (
        "For real-time data and more sports: "
      )}
      {licence ? licence.message : null}
    </>
  );
}
