import { logger } from "../../log/index.ts";
import type { AutoDisabled } from "./outbox.ts";

// What the operators are told when the service disables an organisation's endpoint. The
// organisation is told with the change itself: the console's banner reads `auto_disabled_at`, and
// the audit entry and the admins' mail are written in the same transaction (outbox.ts).

/** Raises the notice that an endpoint was disabled after a day of failed attempts. */
export function raiseEndpointDisabledNotice(notice: AutoDisabled): void {
  logger().warn(
    {
      org_id: notice.orgId,
      endpoint_id: notice.endpointId,
      failing_since: notice.failingSince.toISOString(),
    },
    "Webhook endpoint disabled after a day of failed deliveries",
  );
}
