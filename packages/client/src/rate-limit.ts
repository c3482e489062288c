// The `RateLimit` and `RateLimit-Policy` headers (draft-ietf-httpapi-ratelimit-headers-10, in
// structured-field form), read into one record per policy:
//   RateLimit-Policy: "second";q=10;w=1, "month";q=100000;w=2592000
//   RateLimit: "second";r=9;t=1, "month";r=4711;t=86400

export type RateLimitPolicy = {
  /** Requests the policy admits per window (`q`). */
  quota?: number;
  /** The window in seconds (`w`). */
  windowSeconds?: number;
  /** Requests left in the current window (`r`). */
  remaining?: number;
  /** Seconds until the window resets (`t`). */
  resetSeconds?: number;
};

/** Each policy by name (`second`, `month`), as the last answer reported it. */
export type RateLimit = Record<string, RateLimitPolicy>;

const FIELDS: Record<string, keyof RateLimitPolicy> = {
  q: "quota",
  w: "windowSeconds",
  r: "remaining",
  t: "resetSeconds",
};

/** The members of a structured-field list: each name (a string or a token) with its parameters. */
export function parseStructuredList(value: string): { name: string; params: Record<string, string> }[] {
  const members: { name: string; params: Record<string, string> }[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (value[i] === " " || value[i] === "\t") i++;
  };
  const bareItem = (): string => {
    if (value[i] === '"') {
      let text = "";
      for (i++; i < value.length && value[i] !== '"'; i++) text += value[i] === "\\" ? value[++i] : value[i];
      i++;
      return text;
    }
    const start = i;
    while (i < value.length && !";,= \t".includes(value[i]!)) i++;
    return value.slice(start, i);
  };
  while (i < value.length) {
    skipSpaces();
    const name = bareItem();
    const params: Record<string, string> = {};
    while (value[i] === ";") {
      i++;
      skipSpaces();
      const key = bareItem();
      if (value[i] === "=") {
        i++;
        params[key] = bareItem();
      } else params[key] = "?1"; // a parameter without a value is true
    }
    if (name) members.push({ name, params });
    while (i < value.length && value[i] !== ",") i++;
    i++;
  }
  return members;
}

/** Both headers of one answer as one record, or null when the answer carried neither. */
export function parseRateLimit(headers: Headers): RateLimit | null {
  const policy = headers.get("ratelimit-policy");
  const state = headers.get("ratelimit");
  if (policy === null && state === null) return null;
  const limits: RateLimit = {};
  for (const header of [policy, state]) {
    for (const { name, params } of parseStructuredList(header ?? "")) {
      const entry = (limits[name] ??= {});
      for (const [key, text] of Object.entries(params)) {
        const field = FIELDS[key];
        if (field && /^-?\d+$/.test(text)) entry[field] = Number(text);
      }
    }
  }
  return limits;
}
