// Waiting for a ticket (a quick pairing's or a seek's): WatchTickets pushes each change;
// once ASSIGNED the page goes to the match. Cancel asks CancelTicket, which may answer
// that the ticket was paired first (then to the match all the same).
import { useEffect, useState } from "preact/hooks";
import { Code, ConnectError } from "@connectrpc/connect";
import { lobby, plainError } from "../api.js";
import { TicketState, type Ticket } from "../gen/colosseum/v1/lobby_pb.js";
import { go } from "../route.js";
import { ErrorLine, moveTimeLabel, relative, Status } from "../ui.js";

/** The ticket `id` as WatchTickets last told it (null until the stream names it). */
export function useTicket(id: string, first: Ticket): [Ticket, string | null] {
  const [ticket, setTicket] = useState<Ticket>(first);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      let backoff = 500;
      while (!stop.signal.aborted) {
        try {
          for await (const r of lobby.watchTickets({}, { signal: stop.signal })) {
            if (r.ticket?.ticketId === id) setTicket(r.ticket);
            setError(null);
            backoff = 500;
          }
        } catch (e) {
          if (stop.signal.aborted) return;
          const final = e instanceof ConnectError && e.code !== Code.Unavailable && e.code !== Code.Aborted
            && e.code !== Code.DeadlineExceeded && e.code !== Code.Unknown && e.code !== Code.Internal;
          setError(plainError(e));
          if (final) return;
        }
        // the stream ended or broke: follow it again after a pause
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 8000);
      }
    })();
    return () => stop.abort();
  }, [id]);
  return [ticket, error];
}

/** True once a ticket waits no more. */
export function ended(t: Ticket): boolean {
  return t.state === TicketState.CANCELLED || t.state === TicketState.EXPIRED;
}

/** A waiting ticket: its state, Cancel, and off to the match once assigned. */
export function TicketWait({ first, onDone, what }: { first: Ticket; onDone: () => void; what: string }) {
  const [ticket, watchError] = useTicket(first.ticketId, first);
  const [error, setError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  useEffect(() => {
    if (ticket.state === TicketState.ASSIGNED && ticket.matchId) go({ page: "match", matchId: ticket.matchId });
  }, [ticket.state, ticket.matchId]);
  const cancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      const r = await lobby.cancelTicket({ ticketId: ticket.ticketId });
      if (r.ticket?.state === TicketState.ASSIGNED && r.ticket.matchId) go({ page: "match", matchId: r.ticket.matchId });
      else if (r.ticket && ended(r.ticket)) onDone();
    } catch (e) {
      setError(plainError(e));
    } finally {
      setCancelling(false);
    }
  };
  const q = ticket.queue;
  const about = q ? `${q.rated ? "rated" : "casual"}, ${moveTimeLabel(q.moveTimeMs)} a move` : "";
  switch (ticket.state) {
    case TicketState.UNSPECIFIED:
    case TicketState.WAITING:
      return (
        <div class="waiting">
          <Status>
            <span class="spinner" aria-hidden="true" /> {what} ({about}). Waiting for an opponent
            {ticket.ratingGap > 0 ? `, within ${Math.round(ticket.ratingGap)} rating points` : ""}; gives up{" "}
            {relative(ticket.expiresAtMs)}.
          </Status>
          <button type="button" disabled={cancelling} onClick={() => void cancel()}>
            Cancel
          </button>
          <ErrorLine error={error ?? watchError} />
        </div>
      );
    case TicketState.PAIRING:
    case TicketState.ASSIGNED:
      return <Status>Opponent found: opening the match…</Status>;
    case TicketState.CANCELLED:
    case TicketState.EXPIRED:
      return (
        <div class="waiting">
          <Status>
            {ticket.state === TicketState.CANCELLED ? "Cancelled." : "No opponent came in time: the wait ran out."}
          </Status>
          <button type="button" onClick={onDone}>
            Try again
          </button>
        </div>
      );
  }
}
