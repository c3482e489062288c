// GET /api/v1/events/{id}: one event
import { getEvent } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(getEvent);
