// GET /api/v1/odds/stream: every event in play with its markets, as they change (Server-Sent Events)
import { routeHandlers } from "@/lib/api/request/web";
import { streamOdds } from "@/lib/api/endpoints/streams";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(streamOdds);
