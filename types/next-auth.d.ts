import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  // The session carries the user's id and nothing else (see app/console/_lib/auth.ts).
  interface Session {
    user: { id: string } & DefaultSession["user"];
  }
}
