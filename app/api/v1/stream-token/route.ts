// GET /api/v1/stream-token: a short-lived token for a browser's EventSource (sport, event_id, ttl)
import { mintStreamToken } from "@/lib/api/stream-endpoints";
import { routeHandlers } from "@/lib/api/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(mintStreamToken);
