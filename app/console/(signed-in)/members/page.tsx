import type { Metadata } from "next";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { now } from "@/lib/clock";
import { listMembers, listPendingInvitations } from "@/lib/console/members";
import { InviteForm, RemoveForm, RoleForm, WithdrawForm } from "./member-forms";
import { Time } from "@/components/display-settings";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const { db, access } = await requireConsole();
  const orgId = access.organisation.id;
  const [members, invitations] = await Promise.all([listMembers(db, orgId), listPendingInvitations(db, orgId, now())]);
  const canEdit = access.role === "admin";
  return (
    <>
      <PageHeader title="Members">
        Admins manage keys, the licence, the plan and members; viewers see everything and change nothing.
      </PageHeader>
      <p className="mb-6 text-sm text-slate-700">
        <Link href="/console/members/sso" className="text-pitch-700 underline underline-offset-4">
          Single sign-on
        </Link>
        : members sign in through your own provider (Enterprise plan).
      </p>
      {canEdit ? (
        <section aria-labelledby="invite-title" className="mb-8">
          <h2 id="invite-title" className="mb-2 text-lg font-semibold text-slate-900">
            Invite a member
          </h2>
          <p className="mb-3 text-sm text-slate-700">
            There is no e-mail: copy the one-time link and send it yourself.
          </p>
          <InviteForm />
        </section>
      ) : (
        <ViewerNotice what="the members" />
      )}
      <section aria-labelledby="members-title">
        <h2 id="members-title" className="mb-2 mt-6 text-lg font-semibold text-slate-900">
          {members.length} member{members.length === 1 ? "" : "s"}
        </h2>
        <ul className="space-y-3" data-testid="member-list">
          {members.map((member) => (
            <li key={member.userId} className="rounded-lg border border-slate-300 p-4">
              <p className="font-medium text-slate-900">
                {member.name} <span className="font-normal text-slate-700">{member.email}</span>
              </p>
              <p className="text-sm text-slate-700">
                {member.role} since <Time at={member.since} style="day" />
                {member.userId === access.user.id ? " (you)" : ""}
              </p>
              {canEdit && member.userId !== access.user.id ? (
                <div className="mt-3 flex flex-wrap gap-3">
                  <RoleForm userId={member.userId} role={member.role} label={member.email} />
                  <RemoveForm userId={member.userId} label={member.email} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      {invitations.length > 0 ? (
        <section aria-labelledby="pending-title" className="mt-8">
          <h2 id="pending-title" className="mb-2 text-lg font-semibold text-slate-900">
            Open invitations
          </h2>
          <ul className="space-y-2">
            {invitations.map((invitation) => (
              <li
                key={invitation.id}
                className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-300 p-3 text-sm"
              >
                <span>
                  {invitation.role}, created <Time at={invitation.createdAt} style="day" />, valid until{" "}
                  <Time at={invitation.expiresAt} />
                </span>
                {canEdit ? <WithdrawForm invitationId={invitation.id} /> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
