"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import {
  addWebhookAction,
  redeliverAction,
  rotateWebhookSecretAction,
  sendWebhookTestAction,
  setThresholdsAction,
  setWebhookEnabledAction,
} from "@/app/console/webhook-actions";
import { CopyButton } from "@/components/console/copy-button";
import { SecretText } from "@/components/console/secret-text";
import { buttonClass, Field, FormMessage, secondaryButtonClass, SubmitButton } from "@/components/console/form";
import type { ShownOnceSecret } from "@/lib/console/webhooks";

/**
 * The one view of an endpoint's secret, held only in this component's memory: the server sent it
 * once, as the action's result. "I have stored it" forgets it.
 */
function SecretShownOnce({ shown, onDone }: { shown: ShownOnceSecret; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section
      aria-labelledby="secret-once-title"
      className="mt-3 rounded-lg border-2 border-amber-500 bg-amber-50 p-4"
      data-testid="secret-once"
    >
      <h3 id="secret-once-title" ref={heading} tabIndex={-1} className="font-semibold text-slate-900">
        The signing secret of {shown.url}
      </h3>
      <p className="mt-2 text-sm font-medium text-amber-950">
        Copy it now into your receiver: this is the only time it is shown. Messages are signed with it as Standard
        Webhooks (the <code>webhook-signature</code> header).
      </p>
      <SecretText id="shown-secret" label="Secret" value={shown.secret} testId="shown-secret" />
      <div className="mt-3 flex flex-wrap gap-2">
        <CopyButton value={shown.secret} label="Copy secret" />
        <button type="button" className={buttonClass} onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

export function AddEndpoint() {
  const [round, setRound] = useState(0);
  return <AddEndpointForm key={round} onDone={() => setRound((r) => r + 1)} />;
}

function AddEndpointForm({ onDone }: { onDone: () => void }) {
  const [state, action] = useActionState(addWebhookAction, null);
  const shown = state && "ok" in state ? state.data : null;
  if (shown) return <SecretShownOnce shown={shown} onDone={onDone} />;
  return (
    <form action={action} className="mt-2 space-y-3" data-testid="add-endpoint">
      <Field
        name="url"
        label="Endpoint URL"
        hint="Where messages are posted, e.g. https://example.com/hooks/sports-data."
        type="url"
        required
        maxLength={2000}
        state={state}
      />
      <SubmitButton pendingText="Adding…">Add endpoint</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

/** Send a test, rotate the secret (shown once), disable or enable: one endpoint's buttons. */
export function EndpointActions({ endpointId, enabled }: { endpointId: string; enabled: boolean }) {
  const [testState, test] = useActionState(sendWebhookTestAction, null);
  const [enabledState, toggle] = useActionState(setWebhookEnabledAction, null);
  const [round, setRound] = useState(0);
  return (
    <div>
      <div className="flex flex-wrap gap-2">
        <form action={test}>
          <input type="hidden" name="endpointId" value={endpointId} />
          <SubmitButton pendingText="Sending…" className={secondaryButtonClass}>
            Send test message
          </SubmitButton>
        </form>
        <form action={toggle}>
          <input type="hidden" name="endpointId" value={endpointId} />
          <input type="hidden" name="enabled" value={enabled ? "0" : "1"} />
          <SubmitButton pendingText="Saving…" className={secondaryButtonClass}>
            {enabled ? "Disable" : "Enable"}
          </SubmitButton>
        </form>
        <RotateSecret key={round} endpointId={endpointId} onDone={() => setRound((r) => r + 1)} />
      </div>
      <FormMessage state={testState} />
      <FormMessage state={enabledState} />
    </div>
  );
}

function RotateSecret({ endpointId, onDone }: { endpointId: string; onDone: () => void }) {
  const [state, action] = useActionState(rotateWebhookSecretAction, null);
  const shown = state && "ok" in state ? state.data : null;
  if (shown) return <SecretShownOnce shown={shown} onDone={onDone} />;
  return (
    <form action={action}>
      <input type="hidden" name="endpointId" value={endpointId} />
      <SubmitButton pendingText="Rotating…" className={secondaryButtonClass}>
        Rotate secret
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function SendAgain({ deliveryId }: { deliveryId: string }) {
  const [state, action] = useActionState(redeliverAction, null);
  return (
    <form action={action}>
      <input type="hidden" name="deliveryId" value={deliveryId} />
      <SubmitButton pendingText="Queuing…" className={secondaryButtonClass}>
        Send again
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

export function ThresholdsForm({ thresholds }: { thresholds: readonly number[] }) {
  const [state, action] = useActionState(setThresholdsAction, null);
  return (
    <form action={action} className="mt-2 space-y-3">
      <Field
        name="thresholds"
        label="Thresholds (percent of each key's monthly quota)"
        hint="Up to ten, separated by commas."
        defaultValue={thresholds.join(", ")}
        required
        maxLength={60}
        state={state}
      />
      <SubmitButton pendingText="Saving…">Save thresholds</SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
