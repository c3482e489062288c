"use client";

/** A secret shown once (a key, a signing secret): selected whole on focus, never autocompleted or spell-checked. */
export function SecretText({ id, label, value, testId }: { id: string; label: string; value: string; testId: string }) {
  return (
    <>
      <label htmlFor={id} className="mt-3 block text-sm font-medium text-slate-900">
        {label}
      </label>
      <textarea
        id={id}
        data-testid={testId}
        readOnly
        rows={2}
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        className="mt-1 block w-full resize-none rounded-md border border-slate-400 bg-white px-3 py-2 font-mono text-sm break-all text-slate-900"
        autoComplete="off"
        spellCheck={false}
      />
    </>
  );
}
