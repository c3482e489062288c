import NextAuth from "next-auth";
import { authOptions } from "@/app/console/_lib/auth";

// GET and POST /api/auth/*: next-auth's sign-in, sign-out, session and CSRF endpoints.
async function handler(req: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(req as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
