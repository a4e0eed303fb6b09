// A game's leaderboards (GetLeaderboard): established ratings, provisional ones, bots;
// a page at a time, or the page around the signed-in player. Each name links to its page.
import { useState } from "preact/hooks";
import { lobby, session } from "../api.js";
import { Board, type GetLeaderboardResponse } from "../gen/colosseum/v1/lobby_pb.js";
import { go } from "../route.js";
import { ErrorLine, GamePicker, Pager, PlayerLink, rating, useGames, useLoad } from "../ui.js";

/** The boards by their route names (route.ts defaults to `established`). */
export const BOARDS: { name: string; board: Board; label: string; about: string }[] = [
  { name: "established", board: Board.RATED, label: "Established", about: "Players whose rating has settled (deviation at most 110) and who chose to be shown." },
  { name: "provisional", board: Board.PROVISIONAL, label: "Provisional", about: "Players still new to the game (deviation above 110) who chose to be shown." },
  { name: "bots", board: Board.BOTS, label: "Bots", about: "Programs playing through the API, ranked apart from people." },
];

/** The route name of a board. */
export function boardName(b: Board): string {
  return BOARDS.find((x) => x.board === b)?.name ?? "established";
}

const PAGE = 20;

function Table({ page, me }: { page: GetLeaderboardResponse; me: string | undefined }) {
  if (!page.entries.length) return <p class="muted">No one on this board yet.</p>;
  return (
    <div class="table-wrap">
      <table class="board">
        <caption class="sr-only">Leaderboard, best first</caption>
        <thead>
          <tr>
            <th scope="col">Rank</th>
            <th scope="col">Player</th>
            <th scope="col" class="num">Rating</th>
            <th scope="col" class="num wide">Deviation</th>
            <th scope="col" class="num">Games</th>
          </tr>
        </thead>
        <tbody>
          {page.entries.map((e) => (
            <tr key={e.playerId} class={e.playerId === me ? "me" : undefined}>
              <td>{String(e.rank)}</td>
              <td>
                <PlayerLink id={e.playerId} name={e.displayName} />
              </td>
              <td class="num">{rating(e.rating)}</td>
              <td class="num wide">±{Math.round(e.deviation)}</td>
              <td class="num">{String(e.games)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Leaderboard({ game, board }: { game: string; board: string }) {
  const games = useGames();
  const which = BOARDS.find((b) => b.name === board) ?? BOARDS[0];
  const [from, setFrom] = useState(1);
  const [around, setAround] = useState(false);
  const me = session();
  const page = useLoad(
    () =>
      lobby.getLeaderboard({
        game,
        board: which.board,
        limit: PAGE,
        fromRank: BigInt(from),
        aroundPlayerId: around && me ? me.playerId : "",
      }),
    [game, which.board, from, around],
  );
  const pick = (g: string, b: string) => {
    setFrom(1);
    setAround(false);
    go({ page: "leaderboard", game: g, board: b });
  };
  const entries = page.value?.entries ?? [];
  const first = entries.length ? Number(entries[0].rank) : from;
  return (
    <>
      <h1>Leaderboards</h1>
      <div class="panel">
        <div class="row">
          {games.value && (
            <GamePicker id="lb-game" games={games.value} value={game} onChange={(g) => pick(g, which.name)} />
          )}
          <span class="field">
            <label for="lb-board">Board</label>
            <select id="lb-board" value={which.name} onChange={(e) => pick(game, e.currentTarget.value)}>
              {BOARDS.map((b) => (
                <option key={b.name} value={b.name}>
                  {b.label}
                </option>
              ))}
            </select>
          </span>
          {me?.account && (
            <button type="button" aria-pressed={around} onClick={() => setAround(!around)}>
              {around ? "From the top" : "Find me"}
            </button>
          )}
        </div>
        <p class="muted">{which.about}</p>
        <ErrorLine error={games.error ?? page.error} />
        {page.value && <Table page={page.value} me={me?.playerId} />}
        {page.value && !around && (
          <Pager label="Leaderboard pages" from={first} count={entries.length} total={Number(page.value.total)}
            pageSize={PAGE} onFrom={setFrom} />
        )}
        <button type="button" class="small" onClick={page.reload}>
          Refresh
        </button>
      </div>
    </>
  );
}
