// Play a built-in bot at once: one button per game and bot (ListGames names them);
// CreateMatch with the bot in the other seat, then to the match.
import { useState } from "preact/hooks";
import { ensureSession, matches, newKey, plainError } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import { go } from "../route.js";
import { ErrorLine, Panel } from "../ui.js";

export function PlayBot({ games }: { games: GameInfo[] }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const play = async (game: string, bot: string) => {
    setBusy(`${game}/${bot}`);
    setError(null);
    try {
      await ensureSession();
      const m = await matches.createMatch({
        game,
        opponent: { kind: { case: "bot", value: bot } },
        seat: 0,
        idempotencyKey: newKey(),
      });
      go({ page: "match", matchId: m.matchId });
    } catch (e) {
      setError(plainError(e));
      setBusy(null);
    }
  };
  return (
    <Panel title="Play a bot now" id="bots-h">
      <ul class="games">
        {games.map((g) => (
          <li key={g.name}>
            <span class="game-title">{g.title}</span>
            <span class="row">
              {g.bots.map((b) => (
                <button key={b} type="button" disabled={busy !== null} aria-label={`Play ${g.title} against the ${b} bot`}
                  onClick={() => void play(g.name, b)}>
                  {busy === `${g.name}/${b}` ? "Starting…" : `vs ${b}`}
                </button>
              ))}
            </span>
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </Panel>
  );
}
