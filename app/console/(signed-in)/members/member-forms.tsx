"use client";

import { useActionState, useState } from "react";
import {
  changeRoleAction,
  inviteMemberAction,
  removeMemberAction,
  withdrawInvitationAction,
} from "@/app/console/actions";
import { CopyButton } from "@/components/console/copy-button";
import { buttonClass, FormMessage, inputClass, secondaryButtonClass, SubmitButton } from "@/components/console/form";
import { Time } from "@/components/display-settings";

export function InviteForm() {
  const [round, setRound] = useState(0);
  return <Invite key={round} onDone={() => setRound((r) => r + 1)} />;
}

function Invite({ onDone }: { onDone: () => void }) {
  const [state, action] = useActionState(inviteMemberAction, null);
  const invitation = state && "ok" in state ? state.data : null;
  if (invitation) {
    const link = `${window.location.origin}/console/invite/${invitation.token}`;
    return (
      <div className="rounded-lg border-2 border-amber-500 bg-amber-50 p-4" data-testid="invitation-link">
        <p className="text-sm font-medium text-amber-950">
          {invitation.mailedTo
            ? `The invitation was mailed to ${invitation.mailedTo}. You can also send them this link yourself`
            : "Send this link to the person you invite"}{" "}
          as {invitation.role}. It works once, until <Time at={invitation.expiresAt} />, and is shown only now.
        </p>
        <label htmlFor="invitation-url" className="mt-2 block text-sm font-medium text-slate-900">
          Invitation link
        </label>
        <input
          id="invitation-url"
          readOnly
          value={link}
          onFocus={(e) => e.currentTarget.select()}
          className={`${inputClass} font-mono text-sm`}
        />
        <div className="mt-3 flex flex-wrap gap-2">
          <CopyButton value={link} label="Copy link" />
          <button type="button" className={buttonClass} onClick={onDone}>
            Done
          </button>
        </div>
      </div>
    );
  }
  return (
    <form action={action} className="flex flex-wrap items-end gap-3">
      <div>
        <label htmlFor="invite-email" className="block text-sm font-medium text-slate-900">
          E-mail (optional: the link is mailed there)
        </label>
        <input
          id="invite-email"
          name="email"
          type="email"
          autoComplete="off"
          defaultValue={state && "error" in state ? (state.values?.email ?? "") : ""}
          aria-invalid={state && "error" in state && state.fieldErrors?.email ? true : undefined}
          className={inputClass}
        />
        {state && "error" in state && state.fieldErrors?.email ? (
          <p className="mt-1 text-sm text-red-800">{state.fieldErrors.email}</p>
        ) : null}
      </div>
      <div>
        <label htmlFor="invite-role" className="block text-sm font-medium text-slate-900">
          Role
        </label>
        <select
          id="invite-role"
          name="role"
          defaultValue={state && "error" in state ? (state.values?.role ?? "viewer") : "viewer"}
          className={inputClass}
        >
          <option value="viewer">Viewer: sees everything, changes nothing</option>
          <option value="admin">Admin: manages keys, licence, plan and members</option>
        </select>
      </div>
      <SubmitButton pendingText="Creating…">Create invitation link</SubmitButton>
      <div className="w-full">
        <FormMessage state={state} />
      </div>
    </form>
  );
}

export function RoleForm({ userId, role, label }: { userId: string; role: string; label: string }) {
  const [state, action] = useActionState(changeRoleAction, null);
  return (
    <form action={action} className="flex flex-wrap items-end gap-2">
      <input type="hidden" name="userId" value={userId} />
      <div>
        <label htmlFor={`role-${userId}`} className="sr-only">
          Role of {label}
        </label>
        <select id={`role-${userId}`} name="role" defaultValue={role} className={inputClass}>
          <option value="viewer">viewer</option>
          <option value="admin">admin</option>
        </select>
      </div>
      <SubmitButton pendingText="Saving…" className={secondaryButtonClass}>
        Change role<span className="sr-only"> of {label}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function RemoveForm({ userId, label }: { userId: string; label: string }) {
  const [state, action] = useActionState(removeMemberAction, null);
  return (
    <form
      action={action}
      onSubmit={(event) => {
        if (!window.confirm(`Remove ${label} from the organisation? Their account is deleted.`)) event.preventDefault();
      }}
    >
      <input type="hidden" name="userId" value={userId} />
      <SubmitButton pendingText="Removing…" className={secondaryButtonClass}>
        Remove<span className="sr-only"> {label}</span>
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function WithdrawForm({ invitationId }: { invitationId: string }) {
  const [state, action] = useActionState(withdrawInvitationAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="invitationId" value={invitationId} />
      <SubmitButton pendingText="Withdrawing…" className={secondaryButtonClass}>
        Withdraw
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
