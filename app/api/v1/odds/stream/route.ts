// GET /api/v1/odds/stream: every event in play with its markets, as they change (Server-Sent Events)
import { routeHandlers } from "@/lib/api/web";
import { streamOdds } from "@/lib/api/stream-endpoints";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(streamOdds);
