// A player's finished matches on their player page (ListPlayerHistory, from the archive:
// anyone's, to any session, a guest's too), newest first, ten a page with "More" to append
// the next: when each ended, the game (a link to the match page, which shows a finished
// match's end screen and record), the opponent (their player page, or the bot's name),
// the result from this player's side and why, and the rating change of a rated match.
// Only finished matches are in the archive, so nothing of a match in progress shows here.
import { useState } from "preact/hooks";
import { ensureSession, matches, plainError, type Session } from "../api.js";
import { SeatResult, type GameInfo, type HistoryEntry } from "../gen/colosseum/v1/colosseum_pb.js";
import { ErrorLine, gameTitle, MatchLink, PlayerLink, rating, Status, usePages, when } from "../ui.js";

/** Entries a page asks for. */
const PAGE_SIZE = 10;

/** How it ended for the player, and the class that colours it (as the rated list's). */
function resultOf(e: HistoryEntry): [string, string] {
  switch (e.result) {
    case SeatResult.WON:
      return ["Won", "r2"];
    case SeatResult.LOST:
      return ["Lost", "r0"];
    case SeatResult.DRAW:
      return [e.reason === "abandoned" ? "No result" : "Draw", "r1"];
    case SeatResult.UNSPECIFIED:
      return ["", ""];
  }
}

/** Why it ended, from the player's side (Outcome.reason's words). */
function reasonOf(e: HistoryEntry): string {
  const won = e.result === SeatResult.WON;
  const lost = e.result === SeatResult.LOST;
  switch (e.reason) {
    case "completed":
      return "played to the end";
    case "resigned":
      return won ? "the opponent resigned" : lost ? "resigned" : "a player resigned";
    case "missed_deadline":
      return won ? "the opponent missed a deadline" : lost ? "missed a deadline" : "both missed a deadline";
    case "rule_violation":
      return won ? "the opponent broke a rule" : lost ? "broke a rule" : "a rule was broken";
    case "connected":
      return won ? "joined both sides" : lost ? "the opponent joined both sides" : "a side was joined";
    case "abandoned":
      return "abandoned: deadlines kept being missed";
    default:
      return e.reason.replace(/_/g, " ");
  }
}

/** The opponent in words (for the match link's accessible name). */
function opponentText(e: HistoryEntry): string {
  if (e.opponentIsBot) return `the ${e.opponentName} bot`;
  if (e.opponentName) return e.opponentName;
  return e.opponentPlayerId ? "a player" : "no one";
}

function Opponent({ e }: { e: HistoryEntry }) {
  if (e.opponentPlayerId) return <PlayerLink id={e.opponentPlayerId} name={e.opponentName} />;
  if (e.opponentIsBot)
    return (
      <>
        {e.opponentName} <span class="tag">bot</span>
      </>
    );
  return e.opponentName ? <>{e.opponentName}</> : <span class="muted">no opponent</span>;
}

/** The rating after a rated match and its change: "1662 (+162)"; null for a casual one. */
export function ratingChange(e: HistoryEntry): string | null {
  if (e.ratingBefore === undefined || e.ratingAfter === undefined) return null;
  const d = Math.round(e.ratingAfter - e.ratingBefore);
  return `${rating(e.ratingAfter)} (${d < 0 ? "\u2212" : "+"}${Math.abs(d)})`;
}

// At phone width the stylesheet lays each row out as a small card (CSS grid, its header
// row hidden from sight): the table's roles are spelled out so that it stays a table to a
// screen reader whatever `display` the rows get.
function Row({ e, games }: { e: HistoryEntry; games: GameInfo[] }) {
  const title = gameTitle(games, e.game);
  const ended = when(e.finishedAtMs);
  const [word, cls] = resultOf(e);
  const change = ratingChange(e);
  return (
    <tr role="row">
      <th scope="row" role="rowheader" class="ended">
        <time dateTime={new Date(Number(e.finishedAtMs)).toISOString()}>{ended}</time>
      </th>
      <td role="cell" class="game">
        <MatchLink id={e.matchId} label={`${title} against ${opponentText(e)}, ended ${ended}`}>
          {title}
        </MatchLink>
      </td>
      <td role="cell" class="opponent">
        {/* The column's header says it on a wide screen; on a phone, this does. */}
        <span class="against" aria-hidden="true">
          against{" "}
        </span>
        <Opponent e={e} />
      </td>
      <td role="cell" class="outcome">
        <span class={`result ${cls}`}>{word}</span> <span class="muted reason">{reasonOf(e)}</span>
      </td>
      <td role="cell" class="num change">
        {change ?? <span class="muted">not rated</span>}
      </td>
    </tr>
  );
}

export function FinishedMatches({ playerId, me, games }: { playerId: string; me: Session | null; games: GameInfo[] }) {
  const [error, setError] = useState<string | null>(null);
  const [pages, setPages] = useState(1);
  const list = usePages(
    async (pageToken) => {
      const r = await matches.listPlayerHistory({ playerId, pageSize: PAGE_SIZE, pageToken });
      return { items: r.entries, next: r.nextPageToken };
    },
    [playerId, me?.playerId],
    me !== null,
  );
  if (!me)
    return (
      <>
        <p class="muted">Seeing finished matches needs a session: a guest's will do.</p>
        <button type="button" onClick={() => void ensureSession().catch((e: unknown) => setError(plainError(e)))}>
          Continue as a guest to see them
        </button>
        <ErrorLine error={error} />
      </>
    );
  const first = list.loading && !list.items.length;
  return (
    <>
      {first && <p class="muted">Loading…</p>}
      {!list.items.length && !list.loading && !list.error && <p class="muted">No finished matches yet.</p>}
      {list.items.length > 0 && (
        <div class="table-wrap">
          <table class="history" role="table">
            <caption class="sr-only">Finished matches, newest first</caption>
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Ended</th>
                <th scope="col" role="columnheader">Game</th>
                <th scope="col" role="columnheader">Opponent</th>
                <th scope="col" role="columnheader">Result</th>
                <th scope="col" role="columnheader" class="num">
                  Rating
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {list.items.map((e) => (
                <Row key={e.matchId} e={e} games={games} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {/* Said once "More" brought a page (the live region is there before it speaks). */}
      {list.items.length > 0 && (
        <Status>
          {pages > 1 && !list.loading ? `${list.items.length} finished matches shown${list.more ? "" : ", all of them"}.` : ""}
        </Status>
      )}
      {list.more && (
        <button
          type="button"
          class="small"
          disabled={list.loading}
          aria-label="More finished matches"
          onClick={() => {
            setPages((n) => n + 1);
            list.next();
          }}
        >
          More
        </button>
      )}
      <ErrorLine error={list.error} />
    </>
  );
}
