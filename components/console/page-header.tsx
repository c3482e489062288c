export function PageHeader({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <header className="mb-6">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{title}</h1>
      {children ? <p className="mt-2 max-w-2xl text-slate-700">{children}</p> : null}
    </header>
  );
}

/** What a viewer is told on a page they may read and not change; `what` is plural unless `one` says otherwise. */
export function ViewerNotice({ what, one = false }: { what: string; one?: boolean }) {
  return (
    <p
      className="rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800"
      data-testid="viewer-notice"
    >
      You are a viewer: you can see {what}, but only an admin can change {one ? "it" : "them"}.
    </p>
  );
}
