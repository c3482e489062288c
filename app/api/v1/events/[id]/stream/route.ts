// GET /api/v1/events/{id}/stream: follow one event (Server-Sent Events)
import { routeHandlers } from "@/lib/api/request/web";
import { streamEvent } from "@/lib/api/endpoints/streams";

export const dynamic = "force-dynamic";
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(streamEvent);
