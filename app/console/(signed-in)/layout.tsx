import { requireConsole } from "@/app/console/_lib/console";
import { ConsoleNav } from "./console-nav";
import { SignOutButton } from "./sign-out-button";

export default async function SignedInLayout({ children }: { children: React.ReactNode }) {
  const { access } = await requireConsole();
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 md:grid-cols-[13rem_minmax(0,1fr)] md:gap-10">
      <aside className="md:border-r md:border-slate-200 md:pr-6">
        <p className="font-semibold text-slate-900" data-testid="organisation-name">
          {access.organisation.name}
        </p>
        <p className="text-sm text-slate-700">
          {access.user.email} · <span data-testid="role">{access.role}</span>
        </p>
        <ConsoleNav />
        <SignOutButton />
      </aside>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
