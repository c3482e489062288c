/**
 * The curl command that follows a stream: `-N`, so that curl shows each message as it comes rather
 * than a buffer's worth at a time. The streams' descriptions show it, and the OpenAPI document
 * offers it as their code sample (the reference's generated one has neither `-N` nor an event's id).
 */
export function streamCurl(path: string): string {
  return `curl -N -H "Authorization: Bearer $KEY" "http://localhost:3000${path}"`;
}
