import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { consoleAccess, type ConsoleAccess } from "@/lib/console/access";
import { formFields, formValues, toActionState, type ActionState, type Fields } from "@/lib/console/actions";
import type { Database } from "@/lib/db";
import { currentInstance } from "@/lib/slot";
import { SIGN_IN_PAGE, sessionUserId } from "./auth";

export async function database(): Promise<Database> {
  return currentInstance().database.db;
}

/** For console pages: who is signed in and with what role, read from the database; else to sign-in. */
export async function requireConsole(): Promise<{ db: Database; access: ConsoleAccess }> {
  const userId = await sessionUserId();
  const db = await database();
  const access = userId ? await consoleAccess(db, userId) : null;
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
): Promise<ActionState<T>> {
  const userId = await sessionUserId();
  const db = await database();
  const state = await toActionState(ok, () => change(db, userId, formFields(formData)), formValues(formData));
  // Every console page shows the organisation's state, so all of them are re-read after a change.
  if (state && "ok" in state) revalidatePath("/console", "layout");
  return state;
}
