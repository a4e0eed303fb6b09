// One's own recent matches on one's own player page (ListMyMatches: the caller's only,
// rated or not, against people or bots): how each ended, or whose move it is.
import { matches } from "../api.js";
import { SeatResult, MyMatchState, type GameInfo, type MyMatch } from "../gen/colosseum/v1/colosseum_pb.js";
import { href } from "../route.js";
import { ErrorLine, gameTitle, MatchLink, usePages, when } from "../ui.js";

const RESULT: Record<SeatResult, [string, string]> = {
  [SeatResult.UNSPECIFIED]: ["", ""],
  [SeatResult.WON]: ["won", "r2"],
  [SeatResult.LOST]: ["lost", "r0"],
  [SeatResult.DRAW]: ["drew", "r1"],
};

function Line({ m, games }: { m: MyMatch; games: GameInfo[] }) {
  const against = m.opponentName ? ` against ${m.opponentName}${m.opponentIsBot ? " (bot)" : ""}` : "";
  if (m.state !== MyMatchState.FINISHED)
    return (
      <li>
        <MatchLink id={m.matchId}>{gameTitle(games, m.game)}</MatchLink>
        {against}: {m.yourMove ? <span class="your-move">your move</span> : <span class="muted">in progress</span>}
      </li>
    );
  const [word, cls] = RESULT[m.result];
  return (
    <li>
      <MatchLink id={m.matchId}>{gameTitle(games, m.game)}</MatchLink> <span class={`result ${cls}`}>{word}</span>
      {against}
      {m.reason && m.reason !== "completed" ? ` (${m.reason.replace(/_/g, " ")})` : ""}.{" "}
      <span class="muted">{when(m.createdAtMs)}</span>{" "}
      <a href={href({ page: "verify", matchId: m.matchId })} aria-label={`Verify the record of the ${gameTitle(games, m.game)} match of ${when(m.createdAtMs)}`}>
        Verify its record
      </a>
    </li>
  );
}

export function MyRecent({ games }: { games: GameInfo[] }) {
  const list = usePages(
    async (pageToken) => {
      const r = await matches.listMyMatches({ pageSize: 10, pageToken });
      return { items: r.matches, next: r.nextPageToken };
    },
    [],
  );
  return (
    <>
      {!list.items.length && !list.loading && !list.error && <p class="muted">No matches yet.</p>}
      <ul class="matches">
        {list.items.map((m) => (
          <Line key={m.matchId} m={m} games={games} />
        ))}
      </ul>
      {list.more && (
        <button type="button" class="small" disabled={list.loading} onClick={list.next}>
          Show more
        </button>
      )}
      <ErrorLine error={list.error} />
    </>
  );
}
