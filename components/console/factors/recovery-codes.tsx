"use client";

import { CopyButton } from "../copy-button";
import { buttonClass, secondaryButtonClass } from "../form";

/** Ten recovery codes, shown this once: copy, download, then carry on. */
export function RecoveryCodesShown({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = `Sports Event Data recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  return (
    <section aria-labelledby="recovery-title" className="rounded-lg border-2 border-amber-500 bg-amber-50 p-4">
      <h2 id="recovery-title" className="font-semibold text-slate-900">
        Your recovery codes: store them now
      </h2>
      <p className="mt-1 text-sm text-slate-800">
        Each works once in place of a code from your app, should you lose it. They are shown this once.
      </p>
      <ul className="mt-3 grid grid-cols-2 gap-2 font-mono text-slate-900" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-4 flex flex-wrap gap-3">
        <CopyButton value={codes.join("\n")} label="Copy the codes" />
        <a
          className={secondaryButtonClass}
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download="recovery-codes.txt"
        >
          Download
        </a>
        <button type="button" className={buttonClass} onClick={onDone}>
          I have stored them
        </button>
      </div>
    </section>
  );
}
