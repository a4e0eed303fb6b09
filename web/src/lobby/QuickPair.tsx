// Quick pairing: a game and a time per move, rated for an account; CreateTicket queues
// the player, and the ticket is followed until it names the match.
import { useState } from "preact/hooks";
import { ensureSession, lobby, newKey, plainError, type Session } from "../api.js";
import type { GameInfo } from "../gen/colosseum/v1/colosseum_pb.js";
import type { Ticket } from "../gen/colosseum/v1/lobby_pb.js";
import { ErrorLine, GamePicker, moveTimesFor, Panel, TimePicker } from "../ui.js";
import { TicketWait } from "./tickets.js";

export function QuickPair({ games, me }: { games: GameInfo[]; me: Session | null }) {
  const [game, setGame] = useState(games[0]?.name ?? "gops");
  const [time, setTime] = useState(60_000);
  const [rated, setRated] = useState(true);
  const [ticket, setTicket] = useState<Ticket | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const account = me?.account === true;
  const moveTime = moveTimesFor(games, game).some((t) => t.ms === time) ? time : 60_000;
  const queue = async () => {
    setBusy(true);
    setError(null);
    try {
      await ensureSession();
      const r = await lobby.createTicket({
        queue: { game, moveTimeMs: BigInt(moveTime), rated: account && rated },
        idempotencyKey: newKey(),
      });
      if (r.ticket) setTicket(r.ticket);
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title="Quick pairing" id="quick-h">
      {ticket ? (
        <TicketWait first={ticket} what="In the queue" onDone={() => setTicket(null)} />
      ) : (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void queue();
          }}
        >
          <GamePicker id="quick-game" games={games} value={game} onChange={setGame} />
          <TimePicker id="quick-time" games={games} game={game} value={moveTime} onChange={setTime} />
          <label class="check" for="quick-rated">
            <input id="quick-rated" type="checkbox" checked={account && rated} disabled={!account}
              aria-describedby="quick-rated-note" onChange={(e) => setRated(e.currentTarget.checked)} />
            Rated
          </label>
          <button type="submit" class="primary" disabled={busy}>
            Find an opponent
          </button>
        </form>
      )}
      {!account && (
        <p id="quick-rated-note" class="note">
          Rated play needs an account: <a href="#/login">sign in or create one</a>.
        </p>
      )}
      <ErrorLine error={error} />
    </Panel>
  );
}
