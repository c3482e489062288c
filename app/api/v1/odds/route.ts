// GET /api/v1/odds: every event in play with its markets (sport, type)
import { listOdds } from "@/lib/api/endpoints";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(listOdds);
