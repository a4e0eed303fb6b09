// Check a match record: open a file or paste the JSON (or name a finished match, whose
// record GetMatchRecord gives), and VerifyRecord replays it under the rules with its
// seed: the same events and result, or the first difference in plain words.
import { useEffect, useState } from "preact/hooks";
import { ensureSession, matches, plainError } from "../api.js";
import type { VerifyRecordResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import { ErrorLine, gameTitle, MatchLink, Panel, Status, useGames } from "../ui.js";

/** The most VerifyRecord takes (colosseum.proto: the 4 MiB message limit). */
const MAX_BYTES = 4 * 1024 * 1024 - 1024;

/** A game's name as VerifyRecord gives it (a refused record's may come JSON-quoted). */
function unquote(name: string): string {
  return name.replace(/^"(.*)"$/, "$1");
}

function Verdict({ v }: { v: VerifyRecordResponse }) {
  const games = useGames();
  if (!v.valid)
    return (
      <div class="verdict bad" role="alert">
        <p class="verdict-head">✗ This record does not replay to the same result.</p>
        <p>
          First difference: <span class="difference">{v.difference}</span>
        </p>
        {v.game && (
          <p class="muted">
            {gameTitle(games.value, unquote(v.game))}; {v.steps} step{v.steps === 1 ? "" : "s"} replayed.
          </p>
        )}
      </div>
    );
  const r = v.result;
  const winner = r?.winner === undefined ? "no winner (a draw or no result)" : `seat ${r.winner + 1} won`;
  return (
    <div class="verdict good" role="status">
      <p class="verdict-head">✓ This record replays to the same result.</p>
      <p>
        {gameTitle(games.value, unquote(v.game))}, {v.steps} steps: {winner}
        {r?.reason ? ` (${r.reason.replace(/_/g, " ")})` : ""}. The seed matches its commitment, and every event is
        as recorded.
      </p>
      {r?.seed && (
        <p class="muted seed">
          Seed: <code>{r.seed}</code>
        </p>
      )}
    </div>
  );
}

/** The record of a finished match, fetched by id (GetMatchRecord needs a session). */
function useMatchRecord(matchId: string | undefined, put: (text: string) => void): string | null {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!matchId) return;
    let live = true;
    void (async () => {
      try {
        await ensureSession();
        const r = await matches.getMatchRecord({ matchId });
        if (live) put(r.recordJson);
      } catch (e) {
        if (live) setError(plainError(e));
      }
    })();
    return () => {
      live = false;
    };
  }, [matchId]);
  return error;
}

export function Verify({ matchId }: { matchId?: string }) {
  const [text, setText] = useState("");
  const [verdict, setVerdict] = useState<VerifyRecordResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fetchError = useMatchRecord(matchId, setText);
  const edit = (t: string) => {
    setText(t);
    setVerdict(null);
    setError(null);
  };
  const open = async (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_BYTES) return setError("That file is larger than a record can be (4 MiB).");
    edit(await f.text());
  };
  const check = async () => {
    setBusy(true);
    setVerdict(null);
    setError(null);
    try {
      const record = new TextEncoder().encode(text.trim());
      if (!record.length) throw new Error("Open or paste a record first.");
      if (record.length > MAX_BYTES) throw new Error("That record is larger than a record can be (4 MiB).");
      setVerdict(await matches.verifyRecord({ record }));
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>Verify a match record</h1>
      <p class="muted">
        A finished match's record holds every move, every event and the seed the match was dealt with. Checking it
        replays the match under the rules: the seed must match the commitment published at the start, and every event
        and the result must come out the same.
      </p>
      <Panel title="The record" id="record-h">
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void check();
          }}
        >
          {matchId && (
            <p>
              The record of <MatchLink id={matchId} />
              {text ? "" : ": loading…"}
            </p>
          )}
          <ErrorLine error={fetchError} />
          <label for="record-file">Open a record file (JSON)</label>
          <input id="record-file" type="file" accept=".json,application/json,text/plain"
            onChange={(e) => void open(e.currentTarget.files?.[0])} />
          <label for="record-text">Or paste the record</label>
          <textarea id="record-text" class="record" rows={10} spellcheck={false} value={text}
            onInput={(e) => edit(e.currentTarget.value)} />
          <button type="submit" class="primary" disabled={busy}>
            Check the record
          </button>
        </form>
        {busy && <Status>Replaying…</Status>}
        <ErrorLine error={error} />
        {verdict && <Verdict v={verdict} />}
      </Panel>
    </>
  );
}
