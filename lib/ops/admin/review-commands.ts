// The operator CLI's decisions on what organisations ask for: licence records (verify, reject,
// revoke) and plans priced on request (approve, decline), as the desk takes them.
import { OPERATOR } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import { LICENCE_VERIFICATIONS, licences } from "../../db/schema/index.ts";
import { reviewLicence, type Licence, type LicenceReview, type ShownLicence } from "../../accounts/licences.ts";
import { findOrganisation } from "../../accounts/organisations.ts";
import { approvePlanRequest, declinePlanRequest } from "../../accounts/plans.ts";
import { optional, required, UsageError, type Options, type Output } from "./arguments.ts";

export const REVIEW_USAGE = `  licence list [--status pending|verified|rejected|revoked]
  licence verify --org ORG --reference REF [--version N]
  licence reject --org ORG --reason TEXT [--reference REF] [--version N]
  licence revoke --org ORG [--reason TEXT] [--reference REF] [--version N]
  plan approve --org ORG [--plan CODE]
  plan decline --org ORG --reason TEXT`;

export const REVIEW_OPTIONS = { version: { type: "string" } } as const;

function licenceLine(l: Licence): string {
  const reason = l.reviewReason ? `  reason="${l.reviewReason}"` : "";
  return `${l.orgId}  ${l.reference}  v${l.version}  ${l.verification}  valid ${l.validFrom} to ${l.validUntil}  ${l.authority}  ${l.holder}  recorded ${l.updatedAt.toISOString()}${reason}`;
}

const REVIEWED: Record<LicenceReview, string> = {
  verify: "verified: its production keys work while it is in force",
  reject: "rejected; the organisation sees the reason",
  revoke: "revoked: its production keys are refused from now on",
};

/**
 * The record the operator checked, as `licence list` printed it: a verification must name it, so
 * that a record changed after the look is refused rather than verified unseen.
 */
function shownRecord(options: Options, review: LicenceReview): ShownLicence | undefined {
  const reference = optional(options, "reference");
  const version = optional(options, "version");
  if (version !== undefined && !/^[1-9]\d{0,8}$/.test(version)) {
    throw new UsageError(
      `--version is the record's version as \`licence list\` shows it (v3: --version 3), not "${version}".`,
    );
  }
  if (reference === undefined && version === undefined) {
    if (review !== "verify") return undefined;
    throw new UsageError(
      "licence verify: name the record you checked with --reference REF (or --version N, as `licence list` shows it).",
    );
  }
  return { reference, version: version === undefined ? undefined : Number(version) };
}

/** The output of a licence or plan decision, or null when `command` is not one. */
export async function runReviewCommand(
  db: Database,
  command: string,
  options: Options,
  at: Date,
): Promise<Output | null> {
  switch (command) {
    case "licence list": {
      const status = optional(options, "status");
      if (status && !(LICENCE_VERIFICATIONS as readonly string[]).includes(status)) {
        throw new UsageError(`--status must be one of ${LICENCE_VERIFICATIONS.join(", ")}, not "${status}".`);
      }
      const all = await db.select().from(licences).orderBy(licences.updatedAt);
      const listed = status ? all.filter((l) => l.verification === status) : all;
      return { json: listed, text: listed.map(licenceLine).join("\n") || "No licences." };
    }
    case "licence verify":
    case "licence reject":
    case "licence revoke": {
      const review = command.split(" ")[1] as LicenceReview;
      const shown = shownRecord(options, review);
      const org = await findOrganisation(db, required(options, "org"));
      const reason = review === "reject" ? required(options, "reason") : optional(options, "reason");
      const licence = await reviewLicence(db, org.id, review, { actor: OPERATOR, at, reason, shown });
      return { json: licence, text: `Licence ${licence.reference} of ${org.name} ${REVIEWED[review]}.` };
    }
    case "plan approve": {
      const org = await findOrganisation(db, required(options, "org"));
      const plan = await approvePlanRequest(db, org.id, OPERATOR, { shown: optional(options, "plan") });
      return { json: { orgId: org.id, plan }, text: `Approved: ${org.name} is on the ${plan.name} plan.` };
    }
    case "plan decline": {
      const org = await findOrganisation(db, required(options, "org"));
      const plan = await declinePlanRequest(db, org.id, required(options, "reason"), OPERATOR, at);
      return {
        json: { orgId: org.id, declined: plan },
        text: `Declined ${org.name}'s request for ${plan.name}; the organisation sees the reason.`,
      };
    }
    default:
      return null;
  }
}
