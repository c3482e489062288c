// GET /api/v1/events/{id}/odds: one event with its markets
import { getEventOdds } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(getEventOdds);
