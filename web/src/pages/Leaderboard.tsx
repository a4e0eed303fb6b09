export function Leaderboard({ game }: { game: string; board: string }) {
  return <h1>Leaderboard {game}</h1>;
}
