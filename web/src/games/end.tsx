// The end of a match: who won and why, the final score, the seed now published (with the
// Verify page to check it), the record to download (GetMatchRecord, saved as
// match-<id>.json), and a rematch for a casual match: a new match against the same bot, or
// one with an open seat to send the same friend.
import { useEffect, useState } from "preact/hooks";
import { lobby, matches, newKey, plainError, type Session } from "../api.js";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import { go, href } from "../route.js";
import type { GameUI, Names } from "./common.js";
import { reasonText, resultText } from "./log.js";

/** A record's JSON, fetched once per page. */
const records = new Map<string, Promise<string>>();
function recordOf(matchId: string): Promise<string> {
  let p = records.get(matchId);
  if (!p) {
    p = matches.getMatchRecord({ matchId }).then((r) => r.recordJson);
    p.catch(() => records.delete(matchId));
    records.set(matchId, p);
  }
  return p;
}

/** Saves `text` as a file named `name` (a Blob behind a download link). */
function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function EndScreen(props: {
  matchId: string;
  resp: GetViewResponse;
  names: Names;
  ui: GameUI;
  me: Session | null;
}) {
  const { matchId, resp, names, ui, me } = props;
  const outcome = resp.outcome!;
  const [busy, setBusy] = useState<"" | "record" | "rematch">("");
  const [error, setError] = useState<string | null>(null);
  const [rated, setRated] = useState(false);
  const mine = names.mySeat;
  const bot = names.bot;

  // A match between two people may have been a rated one (paired by the lobby): rated
  // matches show in the account's rating history, and get no rematch button.
  useEffect(() => {
    if (mine === undefined || bot !== null || !me?.account) return;
    let live = true;
    lobby
      .getRating({ game: resp.game, playerId: me.playerId, historyLimit: 100 })
      .then((r) => live && setRated(r.history.some((h) => h.matchId === matchId)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [matchId, mine, bot, me, resp.game]);

  const download = async () => {
    setBusy("record");
    setError(null);
    try {
      saveFile(`match-${matchId}.json`, await recordOf(matchId));
    } catch (e) {
      setError(`The record could not be fetched: ${plainError(e)}`);
    } finally {
      setBusy("");
    }
  };

  const [rematchKey] = useState(newKey);
  const rematch = async () => {
    if (mine === undefined) return;
    setBusy("rematch");
    setError(null);
    try {
      // The same game and options (as the record writes them), the same seat.
      const rec = JSON.parse(await recordOf(matchId)) as { options?: unknown };
      const options = rec.options && typeof rec.options === "object" ? JSON.stringify(rec.options) : "";
      const r = await matches.createMatch({
        game: resp.game,
        optionsJson: options === "{}" ? "" : options,
        opponent: bot !== null ? { kind: { case: "bot", value: bot } } : { kind: { case: "open", value: {} } },
        seat: mine,
        idempotencyKey: rematchKey,
      });
      go({ page: "match", matchId: r.matchId });
    } catch (e) {
      setError(`No rematch: ${plainError(e)}`);
      setBusy("");
    }
  };

  const title = resultText(outcome.winner, names, outcome.reason);
  const tone = outcome.winner === undefined ? "draw" : mine === undefined ? "neutral" : outcome.winner === mine ? "won" : "lost";
  return (
    <section class={`panel endscreen ${tone}`} aria-labelledby="end-title">
      <h2 id="end-title">{title}</h2>
      <p class="why">
        {title === "Draw" || title === "No result" ? "The match ended: " : "Because "}
        {reasonText(outcome.reason, outcome.winner, names)}.
      </p>
      <p class="final-score">
        <strong>Final score: </strong>
        {ui.finalScore(resp, names)}
      </p>
      <p class="seed">
        <strong>Seed: </strong>
        <code>{outcome.seed}</code>
        <br />
        <span class="muted">
          Every chance draw of this match came from this seed, committed to before the first move. Check it on the{" "}
          <a href={href({ page: "verify", matchId })}>Verify page</a>, which replays the record.
        </span>
      </p>
      <div class="actions">
        <button type="button" onClick={() => void download()} disabled={busy !== ""}>
          {busy === "record" ? "Fetching the record…" : "Download the record"}
        </button>
        <a class="button" href={href({ page: "verify", matchId })}>
          Verify
        </a>
        {mine !== undefined && !rated && (
          <button type="button" class="primary" onClick={() => void rematch()} disabled={busy !== ""}>
            {busy === "rematch"
              ? "Creating…"
              : bot !== null
                ? `Rematch the bot (${bot})`
                : "Rematch: a new match to send your opponent"}
          </button>
        )}
        {rated && <a href={href({ page: "lobby" })}>Find another rated match in the lobby</a>}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
