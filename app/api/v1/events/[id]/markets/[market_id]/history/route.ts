// GET /api/v1/events/{id}/markets/{market_id}/history: one market's every change (from, to)
import { marketHistory } from "@/lib/api/endpoints/history";
import { routeHandlers } from "@/lib/api/request/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(marketHistory);
