"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";

/** The one client cache of the app's data reads (the board's first state). */
export function QueryProvider({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, refetchOnWindowFocus: false, retry: 2 } } }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
