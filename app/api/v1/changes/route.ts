// GET /api/v1/changes: the board stream's messages after a revision (since, sport, limit)
import { listChanges } from "@/lib/api/history-endpoints";
import { routeHandlers } from "@/lib/api/web";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers(listChanges);
