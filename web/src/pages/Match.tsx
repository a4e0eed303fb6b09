import type { Session } from "../api.js";
export function MatchPage({ matchId }: { matchId: string; me: Session | null }) {
  return <h1>Match {matchId}</h1>;
}
