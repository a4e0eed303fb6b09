// Matches being played now, to watch as a spectator (ListLiveMatches), for every game
// or one. The list needs a session (a guest's will do): without one, a button starts a
// guest session first.
import { useState } from "preact/hooks";
import { ensureSession, matches, plainError, type Session } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import { ErrorLine, gameTitle, MatchLink, Panel, relative, useEvery, usePages } from "../ui.js";

function GameFilter(props: { games: GameInfo[]; value: string; onChange: (g: string) => void }) {
  return (
    <span class="field">
      <label for="live-game">Game</label>
      <select id="live-game" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">Every game</option>
        {props.games.map((g) => (
          <option key={g.name} value={g.name}>
            {g.title}
          </option>
        ))}
      </select>
    </span>
  );
}

export function LiveMatches({ games, me }: { games: GameInfo[]; me: Session | null }) {
  const [game, setGame] = useState("");
  const [error, setError] = useState<string | null>(null);
  const list = usePages(
    async (pageToken) => {
      const r = await matches.listLiveMatches({ game, pageSize: 20, pageToken });
      return { items: r.matches, next: r.nextPageToken };
    },
    [game, me?.playerId],
    me !== null,
  );
  useEvery(10_000, list.reload, me !== null);
  return (
    <Panel title="Live matches" id="live-h">
      {!me ? (
        <>
          <p class="muted">Watching needs a session: a guest's will do.</p>
          <button type="button" onClick={() => void ensureSession().catch((e: unknown) => setError(plainError(e)))}>
            Continue as a guest to watch
          </button>
        </>
      ) : (
        <>
          <GameFilter games={games} value={game} onChange={setGame} />
          {!list.items.length && !list.loading && !list.error && <p class="muted">No match is being played right now.</p>}
          <ul class="matches">
            {list.items.map((m) => (
              <li key={m.matchId}>
                <MatchLink id={m.matchId}>{m.playerNames.join(" vs ") || "Match"}</MatchLink>{" "}
                <span class="muted">
                  · {gameTitle(games, m.game)} · started {relative(m.createdAtMs)}
                </span>
              </li>
            ))}
          </ul>
          {list.more && (
            <button type="button" class="small" disabled={list.loading} onClick={list.next}>
              Show more
            </button>
          )}
        </>
      )}
      <ErrorLine error={error ?? list.error} />
    </Panel>
  );
}
