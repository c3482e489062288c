// Who the meter counts besides keys, by an id that stands where a key's does. No imports: the key
// lookup names an organisation's principal too.

/**
 * A console member counted by the meter, as a key is: the principal stands where a key id does
 * (the journal, the tallies, the notices), and its months go to member_usage_monthly.
 */
const MEMBER = "member:";

export function memberPrincipal(userId: string): string {
  return `${MEMBER}${userId}`;
}

/** The user id of a member's principal; undefined for a key's id. */
export function memberOf(principal: string): string | undefined {
  return principal.startsWith(MEMBER) ? principal.slice(MEMBER.length) : undefined;
}

/**
 * An organisation counted by the meter as a whole: the plan's limits are its, shared by its
 * production keys and its members' reads, each of which is counted under this principal as well as
 * its own. Its months go to org_usage_monthly.
 */
const ORGANISATION = "org:";

export function organisationPrincipal(orgId: string): string {
  return `${ORGANISATION}${orgId}`;
}

/** The organisation id of an organisation's principal; undefined for any other. */
export function organisationOf(principal: string): string | undefined {
  return principal.startsWith(ORGANISATION) ? principal.slice(ORGANISATION.length) : undefined;
}
