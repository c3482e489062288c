// GET /api/v1/stream-token: a short-lived token for a browser's EventSource (sport, event_id, ttl)
import { mintStreamToken } from "@/lib/api/endpoints/streams";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(mintStreamToken);
