// Our keys (svc_sb_, svc_sk_), stream tokens (svc_st_) and webhook secrets (whsec_) as they may
// appear in a request's path: masked wherever they are, percent-encoded or not, before a path is
// written to a log.

/** A credential's prefix and its characters, up to the next separator. */
const CREDENTIAL_VALUE = /(svc_s[bkt]_|whsec_)[^/?&#=\s]*/gi;
const HAS_CREDENTIAL = /svc_s[bkt]_|whsec_/i;
const ASCII_ESCAPE = /%([0-7][0-9a-f])/gi;
/** Decoding rounds: a key encoded twice (`%255F`) is still read; more is not a path anyone sends. */
const DECODE_ROUNDS = 3;

/** `text` with ASCII percent-escapes decoded, up to DECODE_ROUNDS times (never throws on a malformed one). */
function decodedAscii(text: string): string {
  let decoded = text;
  for (let round = 0; round < DECODE_ROUNDS && decoded.includes("%"); round++) {
    const next = decoded.replace(ASCII_ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

/**
 * `text` with every credential's secret part replaced by `mask`. A text that carries one only once
 * decoded (`svc%5Fsk%5F…`) is kept decoded, so the mask covers it; any other is kept as it came.
 */
export function maskCredentials(text: string, mask: string): string {
  const plain = HAS_CREDENTIAL.test(text);
  if (!plain && !text.includes("%")) return text;
  const read = plain ? text : decodedAscii(text);
  if (!HAS_CREDENTIAL.test(read)) return text;
  // Decoded either way: a key may be half plain and half encoded (`svc_sk_%41…`).
  return decodedAscii(read).replace(CREDENTIAL_VALUE, (_, prefix: string) => `${prefix}${mask}`);
}
