// The player's own matches in progress (ListMyMatches): the game, the opponent, whose
// move it is and the deadline, each a link back into the match. Read again every few
// seconds while the lobby is open.
import { matches, type Session } from "../api.js";
import { MyMatchState, type MyMatch } from "../gen/colosseum/v1/colosseum_pb.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import { ErrorLine, gameTitle, MatchLink, Panel, relative, useEvery, usePages } from "../ui.js";

function Turn({ m }: { m: MyMatch }) {
  if (!m.opponentName) return <span class="muted">waiting for an opponent to join</span>;
  if (m.yourMove)
    return (
      <span class="your-move">
        Your move{m.deadlineAtMs ? `, due ${relative(m.deadlineAtMs)}` : ""}
      </span>
    );
  return <span class="muted">Their move{m.deadlineAtMs ? `, due ${relative(m.deadlineAtMs)}` : ""}</span>;
}

export function MyMatches({ games, me }: { games: GameInfo[]; me: Session }) {
  const list = usePages(
    async (pageToken) => {
      const r = await matches.listMyMatches({ state: MyMatchState.IN_PROGRESS, pageSize: 20, pageToken });
      return { items: r.matches, next: r.nextPageToken };
    },
    [me.playerId],
  );
  useEvery(10_000, list.reload);
  return (
    <Panel title="Your matches in progress" id="mine-h">
      {!list.items.length && !list.loading && !list.error && <p class="muted">None right now.</p>}
      <ul class="matches">
        {list.items.map((m) => (
          <li key={m.matchId} class="my-match">
            <MatchLink id={m.matchId}>
              {gameTitle(games, m.game)}
              {m.opponentName && ` vs ${m.opponentName}`}
            </MatchLink>
            {m.opponentIsBot && <span class="tag">bot</span>} · <Turn m={m} />
          </li>
        ))}
      </ul>
      {list.more && (
        <button type="button" class="small" disabled={list.loading} onClick={list.next}>
          Show more
        </button>
      )}
      <ErrorLine error={list.error} />
    </Panel>
  );
}
