// GET /api/v1/events/{id}/markets/{market_id}/history: one market's every change (from, to)
import { marketHistory } from "@/lib/api/history-endpoints";
import { routeHandlers } from "@/lib/api/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(marketHistory);
