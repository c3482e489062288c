import { requireConsole } from "@/app/console/_lib/console";
import { ConsoleNav } from "./console-nav";
import { SignOutButton } from "./sign-out-button";

export default async function SignedInLayout({ children }: { children: React.ReactNode }) {
  const { access } = await requireConsole();
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 md:grid-cols-[13rem_minmax(0,1fr)] md:gap-10">
      {/* A phone gets a compact bar (who, Sign out beside it, the pages below) above the page. */}
      <aside className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-x-3 border-b border-slate-200 pb-3 md:block md:border-r md:border-b-0 md:pr-6 md:pb-0">
        <div className="min-w-0">
          <p className="truncate font-semibold text-slate-900 md:whitespace-normal" data-testid="organisation-name">
            {access.organisation.name}
          </p>
          <p className="truncate text-sm text-slate-700 md:break-words md:whitespace-normal" title={access.user.email}>
            {access.user.email} · <span data-testid="role">{access.role}</span>
          </p>
        </div>
        <ConsoleNav />
        <SignOutButton className="col-start-2 row-start-1 md:mt-4" />
      </aside>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
