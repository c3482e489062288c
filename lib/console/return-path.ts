// Where the sign-in page sends a member afterwards: `?next=` names it, and it is the attacker's
// to choose. It is parsed as the browser will parse it, against an origin of our own, and only its
// path and query are kept: a value that leaves the origin (`//evil.example`, or `/\t/evil.example`,
// whose tab URL parsing drops) falls back to the console. So does a path that parsing leaves
// starting with `//` or `/\` (`/.//evil.example` loses its dot segment), decoded or not, since
// whoever follows it next (a browser, a router) would read it as another host.

const OWN_ORIGIN = "http://service.invalid";
export const DEFAULT_RETURN_PATH = "/console";

// `unknown`: a repeated query parameter arrives as an array.
export function returnPath(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/")) return DEFAULT_RETURN_PATH;
  let url: URL;
  try {
    url = new URL(next, OWN_ORIGIN);
  } catch {
    return DEFAULT_RETURN_PATH;
  }
  if (url.origin !== OWN_ORIGIN) return DEFAULT_RETURN_PATH;
  if (leavesTheOrigin(url.pathname)) return DEFAULT_RETURN_PATH;
  return `${url.pathname}${url.search}`;
}

function leavesTheOrigin(pathname: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return true;
  }
  // URL parsing drops tabs and newlines anywhere, and controls and spaces around a value.
  const compact = decoded.replace(/[\u0000-\u0020]/g, "");
  return [pathname, compact].some((path) => /^[/\\][/\\]/.test(path));
}

/** The sign-in page's `?error=` codes (next-auth's) and what each says; any other code says nothing. */
const SIGN_IN_ERRORS: Record<string, string> = {
  CredentialsSignin: "Wrong e-mail or password.",
  SessionRequired: "Sign in to see that page.",
  Callback: "Signing in failed. Try again.",
  Default: "Signing in failed. Try again.",
};

export function signInErrorMessage(code: unknown): string | null {
  return typeof code === "string" && Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code]! : null;
}
