import "#server-only";
import { sql } from "drizzle-orm";
import { rowsOf, type Database } from "../../db/index.ts";
import { MAIL_ORIGIN } from "./links.ts";
import { alertAdmins } from "./notices.ts";

/**
 * Mails the admins of each organisation whose verified licence lapses within 30 days, and again
 * within 7: once per licence end and notice, whichever instance looks first (the primary key). A
 * licence first seen within 7 days gets the 7-day notice only.
 */
export async function noticeLapsingLicences(db: Database, at: Date): Promise<number> {
  const day = at.toISOString().slice(0, 10);
  return db.transaction(async (tx) => {
    let sent = 0;
    for (const days of [7, 30]) {
      const noticed = rowsOf<{ org_id: string; valid_until: string | Date; reference: string }>(
        await tx.execute(sql`
          with noticed as (
            insert into licence_lapse_notices (org_id, valid_until, days, noticed_at)
            select org_id, valid_until, ${days}, ${at.toISOString()}::timestamptz from licences
            where verification = 'verified' and valid_until >= ${day}::date
              and valid_until <= ${day}::date + ${days}::int
            on conflict do nothing
            returning org_id, valid_until)
          select n.org_id, n.valid_until, l.reference from noticed n join licences l on l.org_id = n.org_id`),
      );
      for (const licence of noticed) {
        const until = new Date(licence.valid_until).toISOString().slice(0, 10);
        const left = Math.round((Date.parse(until) - Date.parse(day)) / 86_400_000);
        // The 30-day notice of a licence already within 7 days: the 7-day one said it.
        if (days === 30 && left <= 7) continue;
        sent += await alertAdmins(
          tx,
          licence.org_id,
          {
            topic: "licence",
            subject: `Your licence lapses in ${left} day${left === 1 ? "" : "s"}`,
            paragraphs: [
              `The licence ${licence.reference} is valid until ${until}. After that day production keys are refused until a renewed licence is recorded and verified.`,
            ],
            link: { url: `${MAIL_ORIGIN}/console/licence`, label: "Record the renewed licence" },
          },
          { at, origin: MAIL_ORIGIN },
        );
      }
    }
    return sent;
  });
}
