import { ConsoleNav } from "@/app/console/(signed-in)/console-nav";
import { SignOutButton } from "@/app/console/(signed-in)/sign-out-button";
import { deskText } from "@/components/operator/desk";
import { requireDesk } from "./_lib/desk";

const DESK_LINKS = [
  { href: "/operator", label: "Desk" },
  { href: "/operator/licences", label: "Licences" },
  { href: "/operator/plans", label: "Plans" },
  { href: "/operator/organisations", label: "Organisations" },
  { href: "/operator/incidents", label: "Incidents" },
  { href: "/operator/mail", label: "Mail" },
  { href: "/operator/audit", label: "Operator audit" },
];

export default async function DeskLayout({ children }: { children: React.ReactNode }) {
  const { access } = await requireDesk();
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 md:grid-cols-[13rem_minmax(0,1fr)] md:gap-10">
      {/* As the console's: on a phone a compact bar above the page, beside it on wider screens. */}
      <aside className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-x-3 border-b border-slate-200 pb-3 md:block md:border-r md:border-b-0 md:pr-6 md:pb-0 dark:border-slate-700">
        <div className="min-w-0">
          <p className={`truncate font-semibold md:whitespace-normal ${deskText.strong}`}>Operators&apos; desk</p>
          <p
            className={`truncate text-sm md:break-words md:whitespace-normal ${deskText.muted}`}
            title={access.user.email}
            data-testid="operator-email"
          >
            {access.user.email}
          </p>
        </div>
        <ConsoleNav label="Desk" links={DESK_LINKS} />
        <SignOutButton className="col-start-2 row-start-1 md:mt-4" />
      </aside>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
