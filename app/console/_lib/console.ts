import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { consoleAccess, type ConsoleAccess } from "@/lib/console/access";
import { formFields, formValues, toActionState, type ActionState, type Fields } from "@/lib/console/actions";
import type { Database } from "@/lib/db";
import { operatorAccess } from "@/lib/accounts/operators";
import { currentInstance } from "@/lib/instance";
import { SIGN_IN_PAGE, sessionUserId } from "./auth";

/** Where an operator works, and lands after signing in. */
export const DESK_PAGE = "/operator";

export async function database(): Promise<Database> {
  return currentInstance().database.db;
}

/**
 * For console pages: who is signed in and with what role, read from the database; else to
 * sign-in. An operator, who belongs to no organisation, is sent to the desk.
 */
export async function requireConsole(): Promise<{ db: Database; access: ConsoleAccess }> {
  const userId = await sessionUserId();
  const db = await database();
  const access = userId ? await consoleAccess(db, userId) : null;
  if (!access && (await operatorAccess(db, userId))) redirect(DESK_PAGE);
  if (!access) redirect(SIGN_IN_PAGE);
  return { db, access };
}

/**
 * The body of every console server action. A server action is a public POST endpoint: all it
 * trusts is the session's user id; the lib/console function it calls reads the membership and
 * role from the database and validates the input before changing anything.
 */
export async function runAction<T>(
  formData: FormData,
  ok: string,
  change: (db: Database, userId: string | null, fields: Fields) => Promise<T>,
  { area = "/console", always = false }: { area?: string; always?: boolean } = {},
): Promise<ActionState<T>> {
  const userId = await sessionUserId();
  const db = await database();
  const state = await toActionState(ok, () => change(db, userId, formFields(formData)), formValues(formData));
  // Every page of the area shows the state changed, so all of them are re-read after a change
  // (`always`: after a refusal too).
  if (always || (state && "ok" in state)) revalidatePath(area, "layout");
  return state;
}
