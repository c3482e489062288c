import type { Metadata } from "next";
import { requireConsole } from "@/app/console/_lib/console";
import { PasskeyEnrolment } from "@/components/console/factors/passkeys";
import { TotpEnrolment } from "@/components/console/factors/totp-enrolment";
import { PageHeader } from "@/components/console/page-header";
import { Time } from "@/components/display-settings";
import { securityOverview } from "@/lib/accounts/factors/manage";
import { POLICY_WORDS } from "@/lib/accounts/factors/policy";
import { PolicyForm, RecoveryCodesForm, RemoveFactorForm } from "./security-forms";

export const metadata: Metadata = { title: "Security" };

export default async function SecurityPage() {
  const { db, access } = await requireConsole();
  const overview = await securityOverview(db, access.user.id);
  const policy = access.organisation.secondFactorPolicy;
  return (
    <>
      <PageHeader title="Security">
        How you sign in: passkeys, a second factor after your password, and recovery codes should you lose it. Key and
        member changes ask for the second factor again when your last one is more than 10 minutes old.
      </PageHeader>
      <section aria-labelledby="factors-title" className="mb-8">
        <h2 id="factors-title" className="mb-2 text-lg font-semibold text-slate-900">
          Second factors
        </h2>
        {overview.factors.length === 0 ? (
          <p className="mb-3 text-sm text-slate-700" data-testid="no-factors">
            You have none: your password alone signs you in.
            {overview.required ? " Your organisation requires one." : ""}
          </p>
        ) : (
          <ul className="mb-4 space-y-3" data-testid="factor-list">
            {overview.factors.map((factor) => (
              <li key={factor.id} className="rounded-lg border border-slate-300 p-4">
                <p className="font-medium text-slate-900">
                  {factor.name}{" "}
                  <span className="font-normal text-slate-700">
                    ({factor.kind === "totp" ? "authenticator app" : "passkey"})
                  </span>
                </p>
                <p className="text-sm text-slate-700">
                  Added <Time at={factor.createdAt} />
                  {factor.lastUsedAt ? (
                    <>
                      {" "}
                      · last used <Time at={factor.lastUsedAt} />
                    </>
                  ) : null}
                </p>
                <RemoveFactorForm factorId={factor.id} label={factor.name} />
              </li>
            ))}
          </ul>
        )}
        <div className="grid gap-6 sm:grid-cols-2">
          <div>
            <h3 className="mb-2 font-medium text-slate-900">Passkey</h3>
            <p className="mb-2 text-sm text-slate-700">
              Your device or security key, unlocked by your fingerprint, face or PIN. It signs you in on its own, or
              stands in for a code after your password.
            </p>
            <PasskeyEnrolment />
          </div>
          <div>
            <h3 className="mb-2 font-medium text-slate-900">Authenticator app</h3>
            <TotpEnrolment />
          </div>
        </div>
      </section>
      {overview.factors.length > 0 ? (
        <section aria-labelledby="recovery-title" className="mb-8">
          <h2 id="recovery-title" className="mb-2 text-lg font-semibold text-slate-900">
            Recovery codes
          </h2>
          <p className="mb-3 text-sm text-slate-700" data-testid="recovery-codes-left">
            {overview.recoveryCodesLeft} of 10 unused. A new set replaces the old one.
          </p>
          <RecoveryCodesForm />
        </section>
      ) : null}
      <section aria-labelledby="policy-title">
        <h2 id="policy-title" className="mb-2 text-lg font-semibold text-slate-900">
          Organisation policy
        </h2>
        <p className="mb-3 text-sm text-slate-700" data-testid="policy">
          Now: {POLICY_WORDS[policy]}. Members without one are walked through adding one at their next sign-in.
        </p>
        {access.role === "admin" ? <PolicyForm policy={policy} /> : null}
      </section>
    </>
  );
}
