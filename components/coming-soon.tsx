/** An honest page for a part of the product that is not built yet. */
export function NotYetAvailable({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby="page-title" className="max-w-2xl">
      <h1 id="page-title" className="text-3xl font-semibold tracking-tight">
        {title}
      </h1>
      <p className="mt-4 text-slate-700">{children}</p>
      <p
        className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        data-testid="not-yet-available"
      >
        Not available yet in this version of the service.
      </p>
    </section>
  );
}
