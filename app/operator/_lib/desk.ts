import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { database, runAction } from "@/app/console/_lib/console";
import { sessionUserId } from "@/app/console/_lib/auth";
import type { ActionState, Fields } from "@/lib/console/actions";
import type { Database } from "@/lib/db";
import { operatorAccess, type OperatorAccess } from "@/lib/accounts/operators";

/**
 * For desk pages: the operator signed in, read from the database on every page; anyone else
 * (signed out, an organisation's member) is answered 404, as for a page that does not exist.
 */
export async function requireDesk(): Promise<{ db: Database; access: OperatorAccess }> {
  const db = await database();
  const access = await operatorAccess(db, await sessionUserId());
  if (!access) notFound();
  return { db, access };
}

/**
 * A desk page's title, for an operator only: a page's metadata is resolved beside its layout, and
 * the 404 anyone else gets must not carry the desk's name in its title.
 */
export async function deskMetadata(title: string): Promise<Metadata> {
  const access = await operatorAccess(await database(), await sessionUserId());
  return access ? { title: `${title} · Operators' desk`, robots: { index: false, follow: false } } : {};
}

/**
 * The body of every desk server action (the console's, on the desk): all it trusts is the
 * session's user id; the lib/ops/desk function checks that the user is an operator now, and the
 * input, before changing anything. The desk is read again after any answer: a refused decision
 * shows the record as it is now.
 */
export function runDeskAction<T>(
  formData: FormData,
  ok: string,
  change: (db: Database, userId: string | null, fields: Fields) => Promise<T>,
): Promise<ActionState<T>> {
  return runAction(formData, ok, change, { area: "/operator", always: true });
}
