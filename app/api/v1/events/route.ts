// GET /api/v1/events: lists events (sport, status, limit, cursor)
import { listEvents } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(listEvents);
