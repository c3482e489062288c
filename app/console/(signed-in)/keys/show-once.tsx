"use client";

import { sportNames } from "@/lib/sports";
import { useEffect, useRef, type ReactNode } from "react";
import { CopyButton } from "@/components/console/copy-button";
import { SecretText } from "@/components/console/secret-text";
import { buttonClass } from "@/components/console/form";
import type { ShownOnceKey } from "@/lib/console/actions";
import { Time } from "@/components/display-settings";

/**
 * The one view of a new key. It lives only in this component's memory: the server sent the key
 * once, as the create action's result, and it is in no page, URL, cookie or cache. "Done" forgets it.
 */
export function ShowOnce({
  created,
  onDone,
  children,
}: {
  created: ShownOnceKey;
  onDone: () => void;
  /** More to say about the key (what it replaces). */
  children?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section
      aria-labelledby="shown-once-title"
      className="rounded-lg border-2 border-amber-500 bg-amber-50 p-4"
      data-testid="show-once"
    >
      <h3 id="shown-once-title" ref={heading} tabIndex={-1} className="font-semibold text-slate-900">
        Your new {created.environment} key
      </h3>
      <p className="mt-2 text-sm font-medium text-amber-950">
        Copy it now and store it somewhere safe. This is the only time it is shown: we keep only a hash of it, so nobody
        can show it to you again.{" "}
        {created.environment === "sandbox"
          ? "If you lose it, there is no other: an organisation gets one sandbox key, ever."
          : "If you lose it, revoke it and create another."}
      </p>
      <SecretText id="shown-key" label="Key" value={created.key} testId="shown-key" />
      <p className="mt-2 text-sm text-slate-800">
        Covers {sportNames(created.sports)}
        {created.expiresAt ? (
          <>
            ; expires <Time at={created.expiresAt} />
          </>
        ) : null}
        . Use it as <code className="rounded bg-white px-1">Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {children ? <p className="mt-2 text-sm text-slate-800">{children}</p> : null}
      <div className="mt-3 flex flex-wrap gap-2">
        <CopyButton value={created.key} label="Copy key" />
        <button type="button" className={buttonClass} onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

/**
 * A section of the keys page that creates a key: once created, the key is shown (once) in place of
 * the section's own content until "Done".
 */
export function KeyCreationSection({
  name,
  title,
  created,
  onDone,
  children,
}: {
  name: "sandbox" | "production";
  title: string;
  created: ShownOnceKey | null;
  onDone: () => void;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${name}-title`}
      className="rounded-lg border border-slate-300 p-4"
      data-testid={`${name}-section`}
    >
      <h2 id={`${name}-title`} className="text-lg font-semibold text-slate-900">
        {title}
      </h2>
      {created ? (
        <div className="mt-3">
          <ShowOnce created={created} onDone={onDone} />
        </div>
      ) : (
        children
      )}
    </section>
  );
}
