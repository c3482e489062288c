// GET /api/v1/events/{id}/lineups: lineups of one event
import { getLineups } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(getLineups);
