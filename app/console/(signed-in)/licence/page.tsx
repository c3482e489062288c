import type { Metadata } from "next";
import Link from "next/link";
import { requireConsole } from "@/app/console/_lib/console";
import { formatDay } from "@/components/console/format";
import { PageHeader, ViewerNotice } from "@/components/console/page-header";
import { now, utcDay } from "@/lib/clock";
import { getLicence, licenceStatus } from "@/lib/accounts/licences";
import { LicenceForm } from "./licence-form";
import { licenceStatusText } from "./status-text";

export const metadata: Metadata = { title: "Licence" };

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export default async function LicencePage() {
  const { db, access } = await requireConsole();
  const at = now();
  const licence = await getLicence(db, access.organisation.id);
  const status = licenceStatus(licence, at);
  const left = licence ? daysBetween(utcDay(at), licence.validUntil) : 0;
  const canEdit = access.role === "admin";
  return (
    <>
      <PageHeader title="Licence record">
        Production keys are available while your organisation&apos;s licence is verified by us and valid. A new or
        changed record is checked by an operator before it counts, and production keys pause until then. Every change is
        kept in the{" "}
        <Link href="/console/audit" className="text-pitch-700 underline">
          audit log
        </Link>
        .
      </PageHeader>
      <div
        role="status"
        data-testid="licence-status"
        className={`mb-6 rounded-md border p-3 text-sm ${
          status === "valid" && left > 30
            ? "border-pitch-600 bg-pitch-50 text-pitch-900"
            : status === "valid" || status === "pending"
              ? "border-amber-500 bg-amber-50 text-amber-950"
              : "border-red-300 bg-red-50 text-red-900"
        }`}
      >
        {status === "valid"
          ? `${licence!.reference} was verified on ${formatDay(licence!.reviewedAt)}. It lapses after ${formatDay(licence!.validUntil)} (${left === 0 ? "today is its last day" : `in ${left} day${left === 1 ? "" : "s"}`}).`
          : licenceStatusText(licence, status)}
      </div>
      {canEdit ? (
        <LicenceForm
          current={
            licence
              ? {
                  reference: licence.reference,
                  authority: licence.authority,
                  holder: licence.holder,
                  territory: licence.territory ?? "",
                  validFrom: licence.validFrom,
                  validUntil: licence.validUntil,
                }
              : null
          }
        />
      ) : (
        <>
          <ViewerNotice what="the licence record" one />
          {licence ? (
            <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
              {[
                ["Reference", licence.reference],
                ["Issuing authority", licence.authority],
                ["Holder's legal name", licence.holder],
                ["Territory", licence.territory ?? "—"],
                ["Valid from", formatDay(licence.validFrom)],
                ["Valid until", formatDay(licence.validUntil)],
                ["Verification", licence.verification],
              ].map(([label, value]) => (
                <div key={label}>
                  <dt className="text-slate-600">{label}</dt>
                  <dd className="text-slate-900">{value}</dd>
                </div>
              ))}
            </dl>
          ) : null}
        </>
      )}
    </>
  );
}
