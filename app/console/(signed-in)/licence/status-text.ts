import { formatDay } from "@/components/console/format";
import type { Licence, LicenceStatus } from "@/lib/accounts/licences";

/** One sentence on where the licence record stands, for the licence page and the overview. */
export function licenceStatusText(licence: Licence | undefined, status: LicenceStatus): string {
  if (status === "missing" || !licence) return "No licence recorded: production keys cannot be created yet.";
  const reason = licence.reviewReason ? ` Reason: ${licence.reviewReason}` : "";
  switch (status) {
    case "pending":
      return `${licence.reference} awaits an operator's verification: production keys follow once it is verified.`;
    case "rejected":
      return `${licence.reference} was rejected on ${formatDay(licence.reviewedAt)}.${reason} Correct the record and save it to have it checked again.`;
    case "revoked":
      return `${licence.reference} was revoked on ${formatDay(licence.reviewedAt)}: production keys are refused.${reason}`;
    case "lapsed":
      return `${licence.reference} lapsed after ${formatDay(licence.validUntil)}: production keys are refused until a valid licence is recorded and verified.`;
    case "not_yet_valid":
      return `${licence.reference} is verified, and valid from ${formatDay(licence.validFrom)}.`;
    case "valid":
      return `${licence.reference} is verified, valid until ${formatDay(licence.validUntil)}.`;
  }
}
