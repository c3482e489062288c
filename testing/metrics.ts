// What a server's /metrics says (the Prometheus text exposition), read with the metrics token.

/** One sample of a Prometheus text exposition; 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

export async function scrape(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  return response.text();
}

/** Statements the server sent to the database while serving API requests, so far. */
export async function requestQueries(baseUrl: string, token: string): Promise<number> {
  return sample(await scrape(baseUrl, token), "database_queries_total", { origin: "request" });
}
