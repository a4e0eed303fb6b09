// A public tournament's tables: the standings with their tie-breaks, the crosstable
// (each player's games by round: result and the opponent's rank) and the rounds' games.
import {
  CrosstableResult, PublicGameResult, type CrosstableCell, type PublicRound, type PublicStanding,
} from "../gen/colosseum/v1/tournament_view_pb.js";
import { MatchLink } from "../ui.js";

/** Half points for people: 3½, ½, 2. */
export function halves(n2: number): string {
  const whole = Math.floor(n2 / 2);
  return n2 % 2 ? (whole ? `${whole}½` : "½") : String(whole);
}

function quarters(n4: number): string {
  return (n4 / 4).toFixed(2).replace(/\.?0+$/, "");
}

export function Standings({ lines, knockout }: { lines: PublicStanding[]; knockout: boolean }) {
  return (
    <div class="table-wrap">
      <table class="standings">
        <caption class="sr-only">Standings, best first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Player</th>
            <th scope="col" class="num">Points</th>
            <th scope="col" class="num">
              <abbr title="Wins, draws, losses">W–D–L</abbr>
            </th>
            <th scope="col" class="num wide">Byes</th>
            {knockout ? (
              <th scope="col" class="num">Reached</th>
            ) : (
              <>
                <th scope="col" class="num">
                  <abbr title="Buchholz: the sum of the opponents' points">Buch.</abbr>
                </th>
                <th scope="col" class="num wide">
                  <abbr title="Sonneborn-Berger">SB</abbr>
                </th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {lines.map((s) => (
            <tr key={s.rank} class={s.withdrawn ? "withdrawn" : undefined}>
              <td>{s.rank}</td>
              <th scope="row">
                {s.name}
                {s.withdrawn && <span class="tag">withdrawn</span>}
              </th>
              <td class="num">{halves(s.points2)}</td>
              <td class="num">
                {s.wins}–{s.draws}–{s.losses}
              </td>
              <td class="num wide">{s.byes}</td>
              {knockout ? (
                <td class="num">round {s.reachedRound}</td>
              ) : (
                <>
                  <td class="num">{halves(s.buchholz2)}</td>
                  <td class="num wide">{quarters(s.sonnebornBerger4)}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const CELL: Record<CrosstableResult, [string, string, string]> = {
  [CrosstableResult.UNSPECIFIED]: ["", "", ""],
  [CrosstableResult.PENDING]: ["…", "playing against", "pending"],
  [CrosstableResult.WIN]: ["+", "won against", "win"],
  [CrosstableResult.DRAW]: ["=", "drew with", "draw"],
  [CrosstableResult.LOSS]: ["−", "lost to", "loss"],
  [CrosstableResult.BYE]: ["bye", "a bye", "bye"],
};

function Cell({ c }: { c: CrosstableCell | undefined }) {
  if (!c) return <td class="x-cell" />;
  const [mark, words, cls] = CELL[c.result];
  const bye = c.result === CrosstableResult.BYE;
  const label = bye ? `Round ${c.round}: a bye` : `Round ${c.round}: ${words} #${c.opponentRank}, seat ${c.seat + 1}`;
  return (
    <td class={`x-cell ${cls}`} title={label}>
      <span aria-hidden="true">{bye ? "bye" : `${mark}${c.opponentRank}`}</span>
      <span class="sr-only">{label}</span>
    </td>
  );
}

/** The crosstable: a column per round (an arena: a column per game, in order). */
export function Crosstable({ lines, rounds }: { lines: PublicStanding[]; rounds: number }) {
  const arena = rounds === 0;
  const cols = arena ? Math.max(0, ...lines.map((s) => s.crosstable.length)) : rounds;
  const byRound = (s: PublicStanding, i: number) =>
    arena ? s.crosstable[i] : s.crosstable.find((c) => c.round === i + 1);
  return (
    <div class="table-wrap">
      <table class="crosstable">
        <caption class="sr-only">
          Crosstable: each player's result by {arena ? "game" : "round"} and the opponent's rank (+ won, = drew, − lost)
        </caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Player</th>
            {Array.from({ length: cols }, (_, i) => (
              <th scope="col" key={i} class="num">
                {arena ? i + 1 : `R${i + 1}`}
              </th>
            ))}
            <th scope="col" class="num">Points</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((s) => (
            <tr key={s.rank}>
              <td>{s.rank}</td>
              <th scope="row">
                {s.name}
                {s.crosstableEarlier > 0 && <span class="note"> (+{s.crosstableEarlier} earlier)</span>}
              </th>
              {Array.from({ length: cols }, (_, i) => (
                <Cell key={i} c={byRound(s, i)} />
              ))}
              <td class="num">{halves(s.points2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const RESULT: Record<PublicGameResult, string> = {
  [PublicGameResult.UNSPECIFIED]: "",
  [PublicGameResult.PENDING]: "playing",
  [PublicGameResult.SEAT0_WON]: "1–0",
  [PublicGameResult.SEAT1_WON]: "0–1",
  [PublicGameResult.DRAW]: "½–½",
};

/** The rounds' games, newest round first, each game linked to its match to watch. */
export function Rounds({ rounds }: { rounds: PublicRound[] }) {
  if (!rounds.length) return <p class="muted">No round has been paired yet.</p>;
  return (
    <>
      {[...rounds].reverse().map((r) => (
        <section key={r.round} class="round" aria-label={r.round ? `Round ${r.round}` : "Games"}>
          <h3>{r.round ? `Round ${r.round}` : "Games"}</h3>
          <ol class="games-list">
            {r.games.map((g) => (
              <li key={g.matchId}>
                <span class="pair">
                  {g.seat0Name} <span class="muted">#{g.seat0Rank}</span> – {g.seat1Name}{" "}
                  <span class="muted">#{g.seat1Rank}</span>
                </span>
                <span class={g.result === PublicGameResult.PENDING ? "score pending" : "score"}>{RESULT[g.result]}</span>
                <MatchLink id={g.matchId}>{g.result === PublicGameResult.PENDING ? "Watch" : "View"}</MatchLink>
              </li>
            ))}
          </ol>
          {r.byeNames.length > 0 && <p class="note">Bye: {r.byeNames.join(", ")}</p>}
        </section>
      ))}
    </>
  );
}
