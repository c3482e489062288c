"use client";

import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import { secondaryButtonClass } from "@/components/console/form";

export function SignOutButton({ className = "" }: { className?: string }) {
  const router = useRouter();
  return (
    <button
      type="button"
      className={`${secondaryButtonClass} ${className}`}
      onClick={async () => {
        // No redirect from next-auth: it would send us to NEXTAUTH_URL's host, which may not be this one.
        await signOut({ redirect: false });
        router.replace("/console/sign-in");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
