import type { Metadata } from "next";
import { NotYetAvailable } from "@/components/coming-soon";

export const metadata: Metadata = { title: "Live board" };

export default function BoardPage() {
  return (
    <NotYetAvailable title="Live odds board">
      Every event in play with its score, clock and markets, updating as the game moves.
    </NotYetAvailable>
  );
}
