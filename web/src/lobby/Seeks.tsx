// Open seeks (casual challenges anyone may accept): ListSeeks every few seconds,
// AcceptSeek to play one; and posting a seek of one's own (CreateSeek), then waiting
// for someone to accept it.
import { useState } from "preact/hooks";
import { ensureSession, lobby, newKey, plainError, type Session } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import { TicketState, type Seek, type Ticket } from "../gen/colosseum/v1/lobby_pb.js";
import { go } from "../route.js";
import {
  ErrorLine, gameTitle, GamePicker, moveTimeLabel, moveTimesFor, Panel, PlayerLink, rating, relative,
  TimePicker, useEvery, useLoad,
} from "../ui.js";
import { TicketWait } from "./tickets.js";

function SeekRow(props: { seek: Seek; games: GameInfo[]; mine: boolean; busy: boolean; onAccept: () => void }) {
  const s = props.seek;
  const title = gameTitle(props.games, s.queue?.game ?? "");
  return (
    <li class="seek">
      <span>
        <PlayerLink id={s.playerId} name={s.displayName} /> <span class="muted">({rating(s.rating)})</span>
      </span>
      <span>
        {title}, {moveTimeLabel(s.queue?.moveTimeMs ?? 0n)} a move
      </span>
      <span class="muted">ends {relative(s.expiresAtMs)}</span>
      {props.mine ? (
        <span class="tag">yours</span>
      ) : (
        <button type="button" disabled={props.busy} aria-label={`Accept ${s.displayName}'s ${title} seek`}
          onClick={props.onAccept}>
          Accept
        </button>
      )}
    </li>
  );
}

function NewSeek({ games, onTicket }: { games: GameInfo[]; onTicket: (t: Ticket) => void }) {
  const [game, setGame] = useState(games[0]?.name ?? "gops");
  const [time, setTime] = useState(60_000);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const moveTime = moveTimesFor(games, game).some((t) => t.ms === time) ? time : 60_000;
  const post = async () => {
    setBusy(true);
    setError(null);
    try {
      await ensureSession();
      const r = await lobby.createSeek({
        queue: { game, moveTimeMs: BigInt(moveTime), rated: false },
        idempotencyKey: newKey(),
      });
      if (r.ticket) onTicket(r.ticket);
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="row"
      aria-label="Post a seek"
      onSubmit={(e) => {
        e.preventDefault();
        void post();
      }}
    >
      <GamePicker id="seek-game" games={games} value={game} onChange={setGame} />
      <TimePicker id="seek-time" games={games} game={game} value={moveTime} onChange={setTime} />
      <button type="submit" disabled={busy}>
        Post a seek
      </button>
      <ErrorLine error={error} />
    </form>
  );
}

export function Seeks({ games, me }: { games: GameInfo[]; me: Session | null }) {
  const list = useLoad(() => lobby.listSeeks({ limit: 50 }), []);
  const [mine, setMine] = useState<Ticket | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEvery(5000, list.reload);
  const accept = async (s: Seek) => {
    setBusy(true);
    setError(null);
    try {
      await ensureSession();
      const r = await lobby.acceptSeek({ seekId: s.seekId, idempotencyKey: newKey() });
      const t = r.ticket;
      if (t?.state === TicketState.ASSIGNED && t.matchId) go({ page: "match", matchId: t.matchId });
      else if (t) setMine(t);
    } catch (e) {
      setError(plainError(e));
      list.reload();
    } finally {
      setBusy(false);
    }
  };
  const seeks = list.value?.seeks ?? [];
  return (
    <Panel title="Open seeks" id="seeks-h">
      {list.value && !seeks.length && <p class="muted">No open seeks right now.</p>}
      {seeks.length > 0 && (
        <ul class="seeks" aria-label="Open seeks">
          {seeks.map((s) => (
            <SeekRow key={s.seekId} seek={s} games={games} mine={s.playerId === me?.playerId} busy={busy}
              onAccept={() => void accept(s)} />
          ))}
        </ul>
      )}
      <ErrorLine error={error ?? list.error} />
      {mine ? (
        <TicketWait first={mine} what={mine.seek ? "Your seek is posted" : "Seek accepted"}
          onDone={() => setMine(null)} />
      ) : (
        <NewSeek games={games} onTicket={(t) => {
          setMine(t);
          list.reload();
        }} />
      )}
    </Panel>
  );
}
