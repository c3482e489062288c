import { cookies } from "next/headers";
import { NextResponse } from "next/server";
import { finishSso } from "@/lib/accounts/sso/flow";
import { currentInstance } from "@/lib/instance";
import { requestAddress } from "@/app/console/_lib/origin";
import { SIGN_IN_PAGE } from "@/app/console/_lib/auth";
import { browserCookieName, sessionCookie, ssoContext } from "@/app/console/_lib/sso";

// GET /api/sso/callback: the organisation's provider sends the browser back here with a code. A
// good answer opens a console session (its cookie set here) and goes where the sign-in began; any
// other goes to the sign-in page with the reason's code, which the page words.
export async function GET(request: Request) {
  const context = await ssoContext();
  const jar = await cookies();
  const browserCookie = browserCookieName(context.secure);
  const result = await finishSso(
    currentInstance().database.db,
    {
      callbackUrl: new URL(request.url),
      browser: jar.get(browserCookie)?.value,
      address: await requestAddress(),
    },
    context,
  );
  const origin = new URL(context.redirectUri).origin;
  const response = NextResponse.redirect(
    new URL(result.ok ? result.returnTo : `${SIGN_IN_PAGE}?sso=${result.reason}`, origin),
    303,
  );
  // A flow taken (used, or refused after it was) leaves no cookie: it goes, with the attributes its
  // name requires. A state that named no flow of this browser leaves the browser's own sign-in be.
  if (result.ok || result.reason !== "state") {
    response.cookies.set(browserCookie, "", {
      httpOnly: true,
      sameSite: "lax",
      secure: context.secure,
      path: "/",
      maxAge: 0,
    });
  }
  if (result.ok) {
    const session = await sessionCookie(result.userId, result.sessionId, context.secure);
    response.cookies.set(session.name, session.value, {
      httpOnly: true,
      sameSite: "lax",
      secure: context.secure,
      path: "/",
      maxAge: session.maxAge,
    });
  }
  return response;
}
