import Link from "next/link";
import { formatDateTime, formatDay } from "@/components/console/format";
import { Badge, cardClass, deskText, Facts, type Tone } from "@/components/operator/desk";
import type { DeskLicence } from "@/lib/ops/desk/queue";
import { LicenceDecision } from "./licence-decision";

const TONE: Record<DeskLicence["verification"], Tone> = {
  pending: "waiting",
  verified: "good",
  rejected: "bad",
  revoked: "bad",
};

function facts(licence: DeskLicence): [string, React.ReactNode][] {
  const items: [string, React.ReactNode][] = [
    [
      "Reference",
      <span key="reference" data-testid="desk-licence-reference">
        {licence.reference}
      </span>,
    ],
    ["Issuing authority", licence.authority],
    ["Holder", licence.holder],
    ["Territory", licence.territory ?? "—"],
    ["Valid", `${formatDay(licence.validFrom)} to ${formatDay(licence.validUntil)}`],
    ["Recorded", `${formatDateTime(licence.updatedAt)} (version ${licence.version})`],
  ];
  if (licence.reviewedAt) items.push([`Decided (${licence.verification})`, formatDateTime(licence.reviewedAt)]);
  if (licence.reviewReason) items.push(["Reason", licence.reviewReason]);
  return items;
}

/** One licence record as the operator checks it, with the decisions its state allows. */
export function LicenceCard({ licence, headingLevel = 3 }: { licence: DeskLicence; headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <article
      className={cardClass}
      aria-labelledby={`licence-${licence.id}`}
      data-testid="desk-licence"
      data-organisation={licence.organisation.slug}
    >
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <Heading id={`licence-${licence.id}`} className={`font-semibold ${deskText.strong}`}>
          <Link href={`/operator/organisations/${licence.organisation.id}`} className={deskText.link}>
            {licence.organisation.name}
          </Link>
          <span className="sr-only">: licence {licence.reference}</span>
        </Heading>
        <Badge tone={TONE[licence.verification]}>{licence.verification}</Badge>
      </div>
      <Facts items={facts(licence)} />
      <LicenceDecision
        orgId={licence.organisation.id}
        organisation={licence.organisation.name}
        reference={licence.reference}
        version={licence.version}
        verification={licence.verification}
      />
    </article>
  );
}
