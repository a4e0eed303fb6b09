// A tournament's public page (TournamentViewService, no key and no session): its state,
// the standings, the crosstable and the rounds' games, followed live until it finishes.
// Only tournaments their organiser made public have one; no key is ever in this page.
import { useState } from "preact/hooks";
import type { PublicTournament } from "../gen/colosseum/v1/tournament_view_pb.js";
import { TournamentState } from "../gen/colosseum/v1/tournaments_pb.js";
import { Crosstable, Rounds, Standings } from "../tournament/tables.js";
import { useTournament, type Following } from "../tournament/follow.js";
import { ErrorLine, gameTitle, moveTimeLabel, Pager, Panel, Status, useGames, when } from "../ui.js";

const PAGE = 100;

const STATE: Record<TournamentState, string> = {
  [TournamentState.UNSPECIFIED]: "",
  [TournamentState.CREATED]: "Not started yet",
  [TournamentState.RUNNING]: "Playing",
  [TournamentState.BETWEEN_ROUNDS]: "Between rounds",
  [TournamentState.PAUSED]: "Paused by the organiser",
  [TournamentState.FINISHED]: "Finished",
};

const FOLLOWING: Record<Following, string> = {
  connecting: "Connecting…",
  live: "Live: updates as results come in.",
  reconnecting: "Connection lost; reconnecting…",
  over: "The tournament is over: these are its final standings.",
  missing: "",
};

function Summary({ t, follow }: { t: PublicTournament; follow: Following }) {
  const games = useGames();
  const round = t.rounds ? `round ${t.round} of ${t.rounds}` : t.endsAtMs ? `ends ${when(t.endsAtMs)}` : "";
  return (
    <div class="panel summary">
      <p>
        {gameTitle(games.value, t.game?.game ?? "")}, {moveTimeLabel(t.game?.moveTimeMs ?? 0n)} a move ·{" "}
        {t.formatLabel} · {t.players} players
      </p>
      <p>
        <strong class={`state s${t.state}`}>{STATE[t.state]}</strong>
        {round && `, ${round}`} · {t.gamesFinished} of {t.games} games finished
      </p>
      <Status>{FOLLOWING[follow]}</Status>
    </div>
  );
}

/** Says so when the page holds only the newest of the games (a window of 500). */
function GamesShown({ t }: { t: PublicTournament }) {
  const shown = t.roundGames.reduce((n, r) => n + r.games.length, 0);
  if (shown >= t.games) return null;
  return <p class="note">The newest {shown} of {t.games} games.</p>;
}

export function Tournament({ tournamentId }: { tournamentId: string }) {
  const [offset, setOffset] = useState(0);
  const { page: t, state, error } = useTournament(tournamentId, offset, PAGE);
  if (state === "missing")
    return (
      <>
        <h1>Tournament</h1>
        <p class="error" role="alert">
          There is no public tournament with this address. Its organiser may not have made it public.
        </p>
      </>
    );
  const knockout = t?.format?.kind.case === "knockout";
  return (
    <>
      <h1>{t ? t.name : "Tournament"}</h1>
      <ErrorLine error={error} />
      {!t && <Status>Loading…</Status>}
      {t && (
        <>
          <Summary t={t} follow={state} />
          <Panel title={state === "over" ? "Final standings" : "Standings"} id="standings-h">
            <Standings lines={t.standings} knockout={knockout} />
            {t.players > PAGE && (
              <Pager label="Standings pages" from={offset + 1} count={t.standings.length} total={t.players}
                pageSize={PAGE} onFrom={(f) => setOffset(f - 1)} />
            )}
          </Panel>
          <Panel title="Crosstable" id="crosstable-h">
            <Crosstable lines={t.standings} rounds={t.rounds} />
          </Panel>
          <Panel title="Rounds" id="rounds-h">
            <GamesShown t={t} />
            <Rounds rounds={t.roundGames} />
          </Panel>
        </>
      )}
    </>
  );
}
