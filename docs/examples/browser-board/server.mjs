// A key holder's own site, as small as it gets: it serves board.html and mints a stream token for
// each visitor with the key, which never leaves this server. Node 24, no dependencies:
//   KEY=svc_sk_… API_URL=http://localhost:3000 node server.mjs
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";

const API_URL = process.env.API_URL ?? "http://localhost:3000";
const KEY = process.env.KEY;
const PORT = Number(process.env.PORT ?? 8080);
if (!KEY) {
  console.error("Set KEY to your API key (svc_sk_… or svc_sb_…).");
  process.exit(2);
}
const page = await readFile(new URL("./board.html", import.meta.url));

createServer(async (request, response) => {
  if (request.url === "/") {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  } else if (request.url === "/stream-token") {
    // Ten minutes to open streams with; the page asks again whenever it must reopen one.
    const minted = await fetch(`${API_URL}/api/v1/stream-token?ttl=600`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const body = await minted.json();
    const answer = minted.ok ? { token: body.data.token, api_url: API_URL } : body;
    response.writeHead(minted.status, { "content-type": "application/json" }).end(JSON.stringify(answer));
  } else {
    response.writeHead(404).end();
  }
}).listen(PORT, "127.0.0.1", () => console.log(`The board is on http://127.0.0.1:${PORT}`));
