export function Tournament({ tournamentId }: { tournamentId: string }) {
  return <h1>Tournament {tournamentId}</h1>;
}
