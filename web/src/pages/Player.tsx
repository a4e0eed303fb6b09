export function Player({ playerId }: { playerId: string }) {
  return <h1>Player {playerId}</h1>;
}
