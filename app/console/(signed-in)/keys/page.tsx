import type { Metadata } from "next";
import { requireConsole } from "@/app/console/_lib/console";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { now } from "@/lib/clock";
import { getPlan, listSports } from "@/lib/accounts/plans";
import { listKeys, productionKeyBlockers } from "@/lib/keys";
import { KeyList } from "./key-list";
import { ProductionKeySection } from "./production-key-section";
import { SandboxSection } from "./sandbox-section";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const { db, access } = await requireConsole();
  const at = now();
  const keys = await listKeys(db, access.organisation.id, at);
  const blockers = await productionKeyBlockers(db, access.organisation.id, at);
  const sportChoices = await listSports(db);
  const { planCode } = access.organisation;
  const plan = planCode ? await getPlan(db, planCode) : undefined;
  const sandbox = keys.find((k) => k.environment === "sandbox");
  const canEdit = access.role === "admin";
  return (
    <>
      <PageHeader title="API keys">
        A key is shown once, when it is created; the service keeps only its SHA-256. Revoking a key refuses its very
        next request.
      </PageHeader>
      {canEdit ? null : <ViewerNotice what="the keys" />}
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <SandboxSection
          canEdit={canEdit}
          steps={blockers.map(({ code, message }) => ({ code, message }))}
          sports={sportChoices}
          existing={
            sandbox
              ? {
                  hint: sandbox.hint,
                  sport: sandbox.sports[0] ?? "",
                  createdAt: sandbox.createdAt.toISOString(),
                  expiresAt: sandbox.expiresAt?.toISOString() ?? null,
                  status: sandbox.status,
                }
              : null
          }
        />
        <ProductionKeySection canEdit={canEdit} blockers={blockers.map((b) => b.message)} />
      </div>
      <KeyList
        canEdit={canEdit}
        planSports={plan?.sports ?? []}
        at={at.getTime()}
        keys={keys.map((k) => ({
          id: k.id,
          name: k.name,
          hint: k.hint,
          environment: k.environment,
          sports: k.sports,
          sportScope: k.sportScope,
          allowedIps: k.allowedIps,
          replacedBy: k.replacedBy,
          replaces: k.replaces,
          createdAt: k.createdAt.toISOString(),
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          expiresAt: k.expiresAt?.toISOString() ?? null,
          revokedAt: k.revokedAt?.toISOString() ?? null,
          status: k.status,
          requestsUsed: k.requestsUsed,
          requestsQuota: k.requestsQuota,
          ownMonthlyQuota: k.ownMonthlyQuota,
          ownRequestsPerSecond: k.ownRequestsPerSecond,
        }))}
      />
    </>
  );
}
