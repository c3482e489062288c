// GET /api/v1/events/{id}/stream: follow one event (Server-Sent Events)
import { routeHandlers } from "@/lib/api/web";
import { streamEvent } from "@/lib/api/stream-endpoints";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(streamEvent);
