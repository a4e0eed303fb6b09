// Following a public tournament's page: WatchPublicTournament sends the whole page at
// once and again whenever it changes, and ends after the page that shows it finished. A
// watch that breaks is opened again after a pause (it starts with the whole page).
import { useEffect, useState } from "preact/hooks";
import { Code, ConnectError } from "@connectrpc/connect";
import { plainError, tournamentView } from "../api.js";
import type { PublicTournament } from "../gen/colosseum/v1/tournament_view_pb.js";
import { TournamentState } from "../gen/colosseum/v1/tournaments_pb.js";

/** Where following the page is. */
export type Following = "connecting" | "live" | "reconnecting" | "over" | "missing";

export interface Followed {
  page: PublicTournament | null;
  state: Following;
  error: string | null;
}

/** The page of tournament `id`, with its standings from line `offset` on, kept live. */
export function useTournament(id: string, offset: number, limit: number): Followed {
  const [page, setPage] = useState<PublicTournament | null>(null);
  const [state, setState] = useState<Following>("connecting");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      let backoff = 500;
      while (!stop.signal.aborted) {
        let finished = false;
        try {
          const req = { tournamentId: id, standingsOffset: offset, standingsLimit: limit };
          for await (const r of tournamentView.watchPublicTournament(req, { signal: stop.signal })) {
            if (!r.tournament) continue;
            setPage(r.tournament);
            finished = r.tournament.state === TournamentState.FINISHED;
            setState(finished ? "over" : "live");
            setError(null);
            backoff = 500;
          }
          if (finished) return;
        } catch (e) {
          if (stop.signal.aborted) return;
          if (e instanceof ConnectError && e.code === Code.NotFound) {
            setState("missing");
            return;
          }
          setError(plainError(e));
        }
        setState("reconnecting");
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 10_000);
      }
    })();
    return () => stop.abort();
  }, [id, offset, limit]);
  return { page, state, error };
}
