// A player's page: their name, their rating in each game (GetRating), the rating's
// history as a chart (GetRating's history: the last 100 rated matches of a game), their
// recent rated matches from that same history, with the result and the opponent's rating,
// and their finished matches, rated or not, newest first a page at a time
// (ListPlayerHistory, from the archive: FinishedMatches.tsx). GetRating answers for
// anyone; ListPlayerHistory needs a session, a guest's will do. A name is known from the
// leaderboards (or the session, for one's own page). One's own page also lists one's own
// matches, in progress too (ListMyMatches: MyRecent.tsx).
import { useState } from "preact/hooks";
import { lobby, session, type Session } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import type { GetRatingResponse } from "../gen/colosseum/v1/lobby_pb.js";
import { href } from "../route.js";
import { RatingChart, type RatingPoint } from "../chart.js";
import { ErrorLine, gameTitle, loadGames, MatchLink, Panel, rating, shortId, useLoad, when } from "../ui.js";
import { FinishedMatches } from "./FinishedMatches.js";
import { boardName } from "./Leaderboard.js";
import { MyRecent } from "./MyRecent.js";

interface GameRating {
  game: GameInfo;
  r: GetRatingResponse;
}

interface Profile {
  name: string | null;
  ratings: GameRating[];
}

/** The player's name: one's own, or from a leaderboard they are ranked on. */
async function nameOf(playerId: string, ratings: GameRating[]): Promise<string | null> {
  const me = session();
  if (me?.playerId === playerId) return me.displayName;
  for (const { game, r } of ratings) {
    if (r.rank === undefined) continue;
    const page = await lobby.getLeaderboard({ game: game.name, board: r.board, limit: 3, aroundPlayerId: playerId });
    const e = page.entries.find((x) => x.playerId === playerId);
    if (e) return e.displayName;
  }
  return null;
}

async function load(playerId: string): Promise<Profile> {
  const games = await loadGames();
  const ratings = await Promise.all(
    games.map(async (game) => ({ game, r: await lobby.getRating({ game: game.name, playerId, historyLimit: 100 }) })),
  );
  return { name: await nameOf(playerId, ratings), ratings };
}

/** Where every rating starts (lobby.proto: a player never rated has 1500, deviation 350). */
const START = { rating: 1500, deviation: 350 };

const RESULT: Record<string, string> = { "1": "won", "0.5": "drew", "0": "lost" };

function result(score: number): string {
  return RESULT[String(score)] ?? `scored ${score}`;
}

function Ratings({ ratings }: { ratings: GameRating[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Rating in each game</caption>
        <thead>
          <tr>
            <th scope="col">Game</th>
            <th scope="col">Rating</th>
            <th scope="col" class="num wide">Games</th>
            <th scope="col">Rank</th>
          </tr>
        </thead>
        <tbody>
          {ratings.map(({ game, r }) => (
            <tr key={game.name}>
              <td>{game.title}</td>
              <td>
                {r.games === 0n ? (
                  <span class="muted">not rated yet</span>
                ) : (
                  <>
                    {rating(r.rating)} <span class="muted">±{Math.round(r.deviation)}</span>
                    {r.provisional && <span class="tag">provisional</span>}
                  </>
                )}
              </td>
              <td class="num wide">{String(r.games)}</td>
              <td>
                {r.rank !== undefined ? (
                  <a href={href({ page: "leaderboard", game: game.name, board: boardName(r.board) })}>
                    #{String(r.rank)}
                  </a>
                ) : (
                  <span class="muted">{r.games === 0n ? "" : "not shown"}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function History({ ratings }: { ratings: GameRating[] }) {
  const played = ratings.filter((x) => x.r.history.length > 0);
  const [pick, setPick] = useState(played[0]?.game.name ?? "");
  const shown = played.find((x) => x.game.name === pick) ?? played[0];
  if (!shown) return <p class="muted">No rated matches yet, so no history to draw.</p>;
  const history = [...shown.r.history].reverse();
  const points: RatingPoint[] = history.map((h) => ({
    atMs: Number(h.atMs),
    rating: h.rating,
    deviation: h.deviation,
    label: `${result(h.score)} against a player rated ${rating(h.opponentRating)}`,
  }));
  // The whole history is here (every rated match): it starts where every rating does.
  if (Number(shown.r.games) === history.length)
    points.unshift({ atMs: points[0].atMs, rating: START.rating, deviation: START.deviation, label: "the start, before any rated match" });
  return (
    <>
      {played.length > 1 && (
        <span class="field">
          <label for="history-game">Game</label>
          <select id="history-game" value={shown.game.name} onChange={(e) => setPick(e.currentTarget.value)}>
            {played.map((x) => (
              <option key={x.game.name} value={x.game.name}>
                {x.game.title}
              </option>
            ))}
          </select>
        </span>
      )}
      <RatingChart points={points} title={`${shown.game.title} rating`} />
    </>
  );
}

function Recent({ ratings }: { ratings: GameRating[] }) {
  const all = ratings
    .flatMap(({ game, r }) => r.history.map((h) => ({ game, h })))
    .sort((a, b) => Number(b.h.atMs - a.h.atMs))
    .slice(0, 20);
  if (!all.length) return <p class="muted">No rated matches yet.</p>;
  const games = ratings.map((x) => x.game);
  return (
    <ul class="matches">
      {all.map(({ game, h }) => (
        <li key={h.matchId}>
          <MatchLink id={h.matchId}>{gameTitle(games, game.name)}</MatchLink>{" "}
          <span class={`result r${h.score * 2}`}>{result(h.score)}</span> against a player rated{" "}
          {rating(h.opponentRating)}; rating after: {rating(h.rating)}. <span class="muted">{when(h.atMs)}</span>{" "}
          <a href={href({ page: "verify", matchId: h.matchId })} aria-label={`Verify the record of the ${game.title} match of ${when(h.atMs)}`}>
            Verify its record
          </a>
        </li>
      ))}
    </ul>
  );
}

export function Player({ playerId, me }: { playerId: string; me: Session | null }) {
  const p = useLoad(() => load(playerId), [playerId]);
  const mine = me?.playerId === playerId;
  const name = p.value?.name ?? `Player ${shortId(playerId)}`;
  return (
    <>
      <h1>{p.value ? name : "Player"}</h1>
      {mine && <p class="muted">This is you.</p>}
      <ErrorLine error={p.error} />
      {p.value && (
        <div class="grid two">
          <Panel title="Ratings" id="ratings-h">
            <Ratings ratings={p.value.ratings} />
          </Panel>
          <Panel title="Recent rated matches" id="recent-h">
            <Recent ratings={p.value.ratings} />
          </Panel>
          <Panel title="Rating history" id="history-h" class="span">
            <History ratings={p.value.ratings} />
          </Panel>
          <Panel title="Finished matches" id="finished-h" class="span">
            <FinishedMatches playerId={playerId} me={me} games={p.value.ratings.map((x) => x.game)} />
          </Panel>
          {mine && (
            <Panel title="Your recent matches" id="mine-h" class="span">
              <MyRecent games={p.value.ratings.map((x) => x.game)} />
            </Panel>
          )}
        </div>
      )}
    </>
  );
}
