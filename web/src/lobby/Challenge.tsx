// A challenge link for a friend: CreateMatch with the other seat open, and the match's
// URL to send (the match page seats whoever opens it first in the open seat).
import { useState } from "preact/hooks";
import { ensureSession, matches, newKey, plainError } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import { href } from "../route.js";
import { ErrorLine, GamePicker, moveTimesFor, Panel, Status, TimePicker } from "../ui.js";

/** The address of a match's page, to send to someone. */
export function matchUrl(matchId: string): string {
  return `${location.origin}/${href({ page: "match", matchId })}`;
}

function Link({ url, matchId }: { url: string; matchId: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied("Copied.");
    } catch {
      const input = document.getElementById("challenge-url") as HTMLInputElement | null;
      input?.select();
      setCopied("Copying is not allowed here: the link is selected, copy it with your keyboard.");
    }
  };
  return (
    <div class="stack">
      <label for="challenge-url">Send this link to your friend</label>
      <div class="row nowrap">
        <input id="challenge-url" class="grow" type="text" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy link
        </button>
      </div>
      {copied && <Status>{copied}</Status>}
      <a href={href({ page: "match", matchId })}>Go to the match and wait there</a>
    </div>
  );
}

export function Challenge({ games }: { games: GameInfo[] }) {
  const [game, setGame] = useState(games[0]?.name ?? "gops");
  const [time, setTime] = useState(60_000);
  const [made, setMade] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const moveTime = moveTimesFor(games, game).some((t) => t.ms === time) ? time : 60_000;
  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      await ensureSession();
      const m = await matches.createMatch({
        game,
        opponent: { kind: { case: "open", value: {} } },
        seat: 0,
        moveTimeMs: BigInt(moveTime),
        idempotencyKey: newKey(),
      });
      setMade(m.matchId);
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title="Challenge a friend" id="challenge-h">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <GamePicker id="challenge-game" games={games} value={game} onChange={setGame} />
        <TimePicker id="challenge-time" games={games} game={game} value={moveTime} onChange={setTime} />
        <button type="submit" disabled={busy}>
          {made ? "Make another link" : "Make a link"}
        </button>
      </form>
      {made && <Link url={matchUrl(made)} matchId={made} />}
      <ErrorLine error={error} />
    </Panel>
  );
}
