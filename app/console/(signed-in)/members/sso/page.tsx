import type { Metadata } from "next";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { publicOrigin } from "@/app/console/_lib/origin";
import { SSO_CALLBACK_PATH } from "@/app/console/_lib/sso";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { Time } from "@/components/display-settings";
import { listDomains, readConnection, SSO_PLAN, TXT_PREFIX } from "@/lib/accounts/sso/connections";
import { AddDomainForm, ConnectionForm, RemoveDomainForm, VerifyDomainForm } from "./sso-forms";

export const metadata: Metadata = { title: "Single sign-on" };

export default async function SsoPage() {
  const { db, access } = await requireConsole();
  const orgId = access.organisation.id;
  const header = (
    <PageHeader title="Single sign-on">
      Members whose addresses are in your verified domains sign in through your own OpenID Connect provider.
    </PageHeader>
  );
  if (access.organisation.planCode !== SSO_PLAN) {
    return (
      <>
        {header}
        <p className="text-slate-800">
          Single sign-on comes with the Enterprise plan.{" "}
          <Link href="/console/plan" className="text-pitch-700 underline underline-offset-4">
            Request it on the Plan page
          </Link>
          .
        </p>
      </>
    );
  }
  const [connection, domains] = await Promise.all([readConnection(db, orgId), listDomains(db, orgId)]);
  const canEdit = access.role === "admin";
  const redirectUri = `${await publicOrigin()}${SSO_CALLBACK_PATH}`;
  return (
    <>
      {header}
      {canEdit ? null : <ViewerNotice what="single sign-on" one />}
      <section aria-labelledby="provider-title" className="mb-8">
        <h2 id="provider-title" className="mb-2 text-lg font-semibold text-slate-900">
          Your provider
        </h2>
        <p className="mb-3 text-sm text-slate-700">
          Register this service at your provider as a web application with the redirect URI{" "}
          <code className="break-all rounded bg-slate-100 px-1" data-testid="sso-redirect-uri">
            {redirectUri}
          </code>{" "}
          and the scopes openid, email and profile.
        </p>
        {canEdit ? (
          <ConnectionForm
            connection={
              connection
                ? {
                    issuer: connection.issuer,
                    clientId: connection.clientId,
                    joinRole: connection.joinRole,
                    requireSso: connection.requireSso,
                  }
                : null
            }
          />
        ) : connection ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="font-medium">Issuer</dt>
            <dd className="break-all">{connection.issuer}</dd>
            <dt className="font-medium">New members join as</dt>
            <dd>{connection.joinRole}</dd>
            <dt className="font-medium">Require SSO</dt>
            <dd>{connection.requireSso ? "yes" : "no"}</dd>
          </dl>
        ) : (
          <p className="text-sm text-slate-700">No provider is set up yet.</p>
        )}
      </section>
      <section aria-labelledby="domains-title">
        <h2 id="domains-title" className="mb-2 text-lg font-semibold text-slate-900">
          E-mail domains
        </h2>
        <p className="mb-3 text-sm text-slate-700">
          A domain counts once verified: publish its TXT record and check it, or ask us to verify it where your DNS
          cannot be checked.
        </p>
        {canEdit ? <AddDomainForm /> : null}
        <ul className="mt-4 space-y-3" data-testid="sso-domains">
          {domains.map((domain) => (
            <li key={domain.domain} className="rounded-lg border border-slate-300 p-4 text-sm">
              <p className="font-medium text-slate-900">
                {domain.domain}{" "}
                <span className="font-normal text-slate-700">
                  {domain.verifiedAt ? (
                    <>
                      verified {domain.verifiedBy === "operator" ? "by an operator" : "by DNS"}{" "}
                      <Time at={domain.verifiedAt} style="day" />
                    </>
                  ) : (
                    "not verified yet"
                  )}
                </span>
              </p>
              {!domain.verifiedAt && canEdit ? (
                <p className="mt-1 break-all text-slate-700">
                  TXT record on {domain.domain}:{" "}
                  <code className="rounded bg-slate-100 px-1">{`${TXT_PREFIX}${domain.token}`}</code>
                </p>
              ) : null}
              {canEdit ? (
                <div className="mt-3 flex flex-wrap gap-3">
                  {domain.verifiedAt ? null : <VerifyDomainForm domain={domain.domain} />}
                  <RemoveDomainForm domain={domain.domain} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
