// Dueling Monsters (1,2,3 Goofspiel) as cards: each round the viewer picks a black card
// (a monster, level 1-3) and a white card (a weapon, 1-9); blacks are always shown, whites
// only when the blacks tie. The board shows the prize, both seats' blacks left (public),
// the viewer's own whites, the whites the other seat was seen to spend, bout points and
// bouts won.
import { useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import {
  type Blacks,
  DuelingMonstersSubmissions,
  type DuelingMonstersView,
  HigherWhite,
} from "../gen/colosseum/v1/dueling_monsters_pb.js";
import {
  type BoardProps,
  CardFace,
  type Entry,
  type GameUI,
  LastResult,
  Pips,
  type Names,
  cards,
  digitOf,
  enterPlays,
  focusAction,
  legal,
  num,
  pair,
  plural,
  seatOrder,
  useKeys,
} from "./common.js";
import { commonEntry, keyOf, type Line } from "./log.js";

function viewOf(resp: GetViewResponse): DuelingMonstersView | null {
  return resp.view?.game.case === "duelingMonsters" ? resp.view.game.value : null;
}

function blackCounts(b: Blacks | undefined): [number, number, number] {
  return [b?.ones ?? 0, b?.twos ?? 0, b?.threes ?? 0];
}

/** The log's lines and the last round's result. */
function story(entries: Entry[], names: Names): { lines: Line[]; last: string | null } {
  const lines: Line[] = [];
  let last: string | null = null;
  let bout = 1;
  for (const e of entries) {
    const common = commonEntry(e, names);
    if (common) {
      lines.push(common);
      continue;
    }
    const key = keyOf(e);
    if (e.event.kind.case !== "duelingMonsters") continue;
    const k = e.event.kind.value.kind;
    let text: string | null = null;
    let strong = false;
    const [a, b] = seatOrder(names);
    switch (k.case) {
      case "setup":
        text = `Dueling Monsters, best of ${2 * k.value.boutsToWin - 1} bouts; ${
          k.value.submissions === DuelingMonstersSubmissions.CHANGEABLE
            ? "a submission may be changed until the deadline"
            : "the first submission is final"
        }.`;
        break;
      case "boutStarted":
        bout = k.value.bout;
        text = `Bout ${bout} begins: 9 battles for prizes 1 to 9, in a hidden order.`;
        break;
      case "roundStarted":
        text = `Bout ${k.value.bout}, battle ${k.value.round}: the prize is worth ${plural(k.value.prize, "point")}.`;
        break;
      case "moved":
        text = k.value.seat === names.mySeat ? null : `${names.subj(k.value.seat)} submitted.`;
        break;
      case "moveSealed":
        text = `You played a level ${k.value.black} monster with weapon ${k.value.white}.`;
        break;
      case "resolved": {
        const r = k.value;
        const bl = pair(r.blacks);
        const wh = pair(r.whites);
        const sc = pair(r.scores);
        let t: string;
        if (bl[0] !== bl[1]) {
          const hi = r.higherWhite;
          const higher =
            hi === HigherWhite.TIE
              ? "the weapons stay hidden and were equal"
              : hi === HigherWhite.SEAT0 || hi === HigherWhite.SEAT1
                ? `the weapons stay hidden; ${names.poss(hi === HigherWhite.SEAT0 ? 0 : 1)} was stronger`
                : "the weapons stay hidden";
          t = `${names.subj(a)} played a level ${bl[a]} monster, ${names.obj(b)} a level ${bl[b]}: ${
            r.winner !== undefined ? `${names.obj(r.winner)} won the ${r.prize} prize` : "nobody won the prize"
          }; ${higher}.`;
        } else if (r.winner !== undefined) {
          t = `Both played level ${bl[0]} monsters; weapons shown: ${names.obj(a)} ${wh[a]}, ${names.obj(b)} ${wh[b]}: ${names.obj(r.winner)} won the ${r.prize} prize.`;
        } else {
          t = `Both played a level ${bl[0]} monster and weapon ${wh[0]}: the ${r.prize} prize is discarded.`;
        }
        last = t;
        text = `Battle ${r.round}: ${t} Bout points: ${names.obj(a)} ${sc[a]}, ${names.obj(b)} ${sc[b]}.`;
        strong = true;
        break;
      }
      case "forfeited": {
        const f = k.value;
        const on = 1 - f.late;
        const t = `${names.subj(f.late)} missed the deadline: ${names.obj(on)} won the ${f.prize} prize with a level ${f.onTimeBlack} monster (weapon hidden); a level ${f.discardedBlack} monster and weapon ${f.discardedWhite} of ${names.poss(f.late)} were discarded at random.`;
        last = t;
        text = `Battle ${f.round}: ${t}`;
        strong = true;
        break;
      }
      case "restarted":
        text = `Both players missed the deadline: the battle restarts (${plural(k.value.restarts, "restart")} in a row).`;
        break;
      case "boutEnded": {
        const x = k.value;
        const sc = pair(x.scores);
        const w = pair(x.boutWins);
        text =
          x.winner !== undefined
            ? `Bout ${x.bout} goes to ${names.obj(x.winner)}, ${sc[x.winner]} to ${sc[1 - x.winner]}. Bouts won: ${names.obj(a)} ${w[a]}, ${names.obj(b)} ${w[b]}.`
            : `Bout ${x.bout} is tied ${sc[0]} to ${sc[1]}: it is replayed.`;
        strong = true;
        break;
      }
      case undefined:
        break;
    }
    if (text) lines.push({ key, text, private: e.private, strong });
  }
  return { lines, last };
}

function Board({ resp, names, events, canMove, submit }: BoardProps) {
  const v = viewOf(resp);
  const [black, setBlack] = useState<number | null>(null);
  const [white, setWhite] = useState<number | null>(null);
  const moves = legal(resp, "duelingMonsters").map((m) => [num(m.black), num(m.white)] as const);
  const okBlack = (b: number) => moves.some(([x, y]) => x === b && (white === null || y === white));
  const okWhite = (w: number) => moves.some(([x, y]) => y === w && (black === null || x === black));
  const ready = canMove && black !== null && white !== null && moves.some(([x, y]) => x === black && y === white);
  const play = () => {
    if (black === null || white === null) return;
    submit({ game: { case: "duelingMonsters", value: { black: BigInt(black), white: BigInt(white) } } });
    setBlack(null);
    setWhite(null);
  };
  useKeys(canMove, (e) => {
    const d = digitOf(e);
    if (d !== null && e.shiftKey && d <= 3) {
      if (moves.some(([x]) => x === d)) setBlack(black === d ? null : d);
      focusAction();
      return true;
    }
    if (d !== null && !e.shiftKey) {
      if (moves.some(([, y]) => y === d)) setWhite(white === d ? null : d);
      focusAction();
      return true;
    }
    return enterPlays(e, ready, play);
  });
  const { last } = story(events, names);
  if (!v) return null;
  const me = names.mySeat;
  const order = seatOrder(names);
  const blacks = [blackCounts(v.blacks0), blackCounts(v.blacks1)];
  const whitesLeft = pair(v.whitesLeft);
  const shown = [cards(v.shownWhites0), cards(v.shownWhites1)];
  const mine = cards(v.myWhites);
  const sealed = v.myMove && me !== undefined && v.moved.includes(me) ? v.myMove : undefined;
  return (
    <div class="board dueling">
      <section class="table" aria-label="Prize">
        <p class="status">
          Bout {v.bout} (first to {v.boutsToWin}) · {v.prize !== undefined ? `battle ${v.round + 1} of 9` : `${v.round} of 9 battles played`}
          {v.restarts ? ` · ${plural(v.restarts, "restart")} in a row` : ""}
        </p>
        {v.prize !== undefined ? (
          <CardFace kind="prize" rank={v.prize} sub="points" label={`Prize: ${plural(v.prize, "point")}`} />
        ) : resp.outcome ? null : (
          <p class="muted">No prize is up.</p>
        )}
        <p class={`moved${v.prize === undefined ? " empty" : ""}`} aria-live="polite">
          {order
            .map((s) =>
              v.moved.includes(s)
                ? s === me
                  ? sealed
                    ? `You played monster ${sealed.black} and weapon ${sealed.white}.`
                    : "You have submitted."
                  : `${names.subj(s)} has submitted.`
                : v.prize !== undefined
                  ? `${names.subj(s)} ${s === me ? "have" : "has"} not submitted yet.`
                  : "",
            )
            .join(" ")}
        </p>
        {cards(v.prizesLeft).length > 0 && <p class="muted caption">Prizes to come this bout (order hidden):</p>}
        <div class="cards small" aria-label="Prizes of this bout to come">
          {cards(v.prizesLeft).map((p) => (
            <CardFace key={p} kind="small prize" rank={p} label={`Prize ${p} to come`} />
          ))}
        </div>
      </section>
      <LastResult text={last} />
      {me !== undefined && (
        <section class="hand mine" aria-label="Your cards">
          <h3>Your monsters (black)</h3>
          <div class="cards">
            {[1, 2, 3].map((b) => {
              const n = blacks[me][b - 1];
              return (
                <CardFace
                  key={b}
                  kind={`black${n ? "" : " spent"}`}
                  rank={b}
                  sub={`×${n}`}
                  hint={`⇧${b}`}
                  label={`Monster level ${b}, ${n} left`}
                  selected={black === b}
                  disabled={!canMove || n === 0 || !okBlack(b)}
                  onClick={() => setBlack(black === b ? null : b)}
                />
              );
            })}
          </div>
          <h3>Your weapons (white)</h3>
          <div class="cards">
            {Array.from({ length: 9 }, (_, i) => i + 1).map((w) => {
              const has = mine.includes(w);
              return (
                <CardFace
                  key={w}
                  kind={`white${has ? "" : " spent"}`}
                  rank={w}
                  hint={String(w)}
                  label={has ? `Weapon ${w}` : `Weapon ${w}, spent`}
                  selected={white === w}
                  disabled={!canMove || !has || !okWhite(w)}
                  onClick={() => setWhite(white === w ? null : w)}
                />
              );
            })}
          </div>
          {canMove && (
            <div class="actions">
              <button type="button" class="primary" disabled={!ready} onClick={play}>
                {ready ? `Play monster ${black} with weapon ${white}` : "Choose a monster and a weapon"}
              </button>
              <span class="muted keys">Keys: 1–9 weapon, Shift+1–3 monster, Enter plays.</span>
            </div>
          )}
        </section>
      )}
      {order
        .filter((s) => s !== me)
        .map((s) => (
          <section class="hand theirs" key={s} aria-label={`${names.poss(s)} cards`}>
            <h3>
              {names.label(s)}: {plural(whitesLeft[s], "weapon")} left
            </h3>
            <div class="cards small">
              {[1, 2, 3].map((b) => (
                <CardFace
                  key={b}
                  kind={`small black${blacks[s][b - 1] ? "" : " spent"}`}
                  rank={b}
                  sub={`×${blacks[s][b - 1]}`}
                  label={`Monster level ${b}: ${blacks[s][b - 1]} left`}
                />
              ))}
              {shown[s].map((w) => (
                <CardFace key={`w${w}`} kind="small white spent" rank={w} label={`Weapon ${w}, seen spent`} />
              ))}
            </div>
            <p class="muted">
              {shown[s].length
                ? `Weapons seen spent this bout: ${shown[s].join(", ")}; the rest of the spent ones stayed hidden.`
                : "No weapon of theirs has been shown this bout."}
            </p>
          </section>
        ))}
    </div>
  );
}

export const duelingMonsters: GameUI = {
  title: "Dueling Monsters",
  Board,
  narrate: (entries, names) => story(entries, names).lines,
  finalScore(resp, names) {
    const v = viewOf(resp);
    if (!v) return "";
    const w = pair(v.boutWins);
    const s = pair(v.scores);
    const [a, b] = seatOrder(names);
    return `Bouts won: ${names.obj(a)} ${w[a]}, ${names.obj(b)} ${w[b]} (last bout's points ${s[a]}–${s[b]})`;
  },
  seat(resp, seat) {
    const v = viewOf(resp);
    if (!v) return null;
    const p = pair(v.scores)[seat];
    const w = pair(v.boutWins)[seat];
    return {
      value: p,
      aria: `${plural(p, "point")} this bout, ${plural(w, "bout")} won of ${v.boutsToWin} needed`,
      extra: (
        <>
          <Pips won={w} of={v.boutsToWin} /> {plural(w, "bout")} won
        </>
      ),
    };
  },
  moved: (resp) => viewOf(resp)?.moved ?? [],
};
