// Masterminds Duel: the viewer's hand of ten effect cards with its own strengths (the other
// seat's are never in the view), the turn history as this viewer saw it (Bluffs as shown,
// what a Reveal showed), bout points and bout wins, Warp Time's order and what it told.
// Cards are buttons; each card's first letter is its key.
import { useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import {
  MastermindsBoutEnd,
  MastermindsCard,
  type MastermindsSeenCard,
  type MastermindsTurn,
  type MastermindsStrengths,
  type MastermindsView,
} from "../gen/colosseum/v1/masterminds_pb.js";
import {
  type BoardProps,
  CardFace,
  type Entry,
  type GameUI,
  LastResult,
  enterPlays,
  focusAction,
  Pips,
  type Names,
  legal,
  pair,
  plural,
  seatOrder,
  useKeys,
} from "./common.js";
import { commonEntry, keyOf, type Line } from "./log.js";

interface CardInfo {
  name: string;
  key: keyof Omit<MastermindsStrengths, "$typeName" | "$unknown">;
  effect: string;
}
const INFO: Record<number, CardInfo> = {
  [MastermindsCard.BLUFF]: { name: "Bluff", key: "bluff", effect: "Shown as a card you choose; its own strength, no effect." },
  [MastermindsCard.COUNTERSPELL]: { name: "Counterspell", key: "counterspell", effect: "Cancels the effect of the other card." },
  [MastermindsCard.EMPOWER]: { name: "Empower", key: "empower", effect: "Your next card gets +1 strength for good." },
  [MastermindsCard.FIREBALL]: { name: "Fireball", key: "fireball", effect: "Winning with it scores 2 points." },
  [MastermindsCard.KILL]: {
    name: "Kill",
    key: "kill",
    effect: "Wins the turn. Loses the bout if countered; wins it against Offering.",
  },
  [MastermindsCard.MAYHEM]: { name: "Mayhem", key: "mayhem", effect: "The lower strength wins instead. Loses to Kill." },
  [MastermindsCard.OFFERING]: { name: "Offering", key: "offering", effect: "+3 strength for good if it loses (not to Kill)." },
  [MastermindsCard.REVEAL]: { name: "Reveal", key: "reveal", effect: "After the next turn, both strengths are shown." },
  [MastermindsCard.SWAP]: { name: "Swap", key: "swap", effect: "Swaps the strengths of your last two cards played." },
  [MastermindsCard.WARP_TIME]: {
    name: "Warp Time",
    key: "warpTime",
    effect: "Next turn the other seat commits first and you see its card.",
  },
};
const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as MastermindsCard[];

export function cardName(c: MastermindsCard): string {
  return INFO[c]?.name ?? "a card";
}

function viewOf(resp: GetViewResponse): MastermindsView | null {
  return resp.view?.game.case === "masterminds" ? resp.view.game.value : null;
}

function seen(c: MastermindsSeenCard | undefined): string {
  if (!c) return "?";
  if (c.card === MastermindsCard.BLUFF && c.shownAs !== MastermindsCard.UNSPECIFIED)
    return `Bluff as ${cardName(c.shownAs)}`;
  return cardName(c.card);
}

function endWords(e: MastermindsBoutEnd): string {
  switch (e) {
    case MastermindsBoutEnd.KILL_COUNTERED:
      return "a Kill was countered";
    case MastermindsBoutEnd.KILL_AGAINST_OFFERING:
      return "a Kill met an Offering";
    case MastermindsBoutEnd.POINTS:
    case MastermindsBoutEnd.UNSPECIFIED:
      return "on points";
  }
}

function story(entries: Entry[], names: Names): Line[] {
  const lines: Line[] = [];
  for (const e of entries) {
    const common = commonEntry(e, names);
    if (common) {
      lines.push(common);
      continue;
    }
    const key = keyOf(e);
    if (e.event.kind.case !== "masterminds") continue;
    const k = e.event.kind.value.kind;
    let text: string | null = null;
    let strong = false;
    const [a, b] = seatOrder(names);
    switch (k.case) {
      case "setup":
        text = `Masterminds Duel: up to 7 bouts of 9 turns, first to 4 bouts wins; ${names.obj(k.value.priority)} ${
          k.value.priority === names.mySeat ? "win" : "wins"
        } a match tied in bouts.`;
        break;
      case "strengths": {
        const s = k.value.strengths;
        text = s
          ? `Your strengths: ${ALL.map((c) => `${cardName(c)} ${s[INFO[c].key]}`).join(", ")}.`
          : null;
        break;
      }
      case "boutStarted":
        text = `Bout ${k.value.bout} begins: all ten cards are back in hand.`;
        break;
      case "turnStarted":
        text =
          k.value.first !== undefined
            ? `Bout ${k.value.bout}, turn ${k.value.turn}: Warp Time: ${names.obj(k.value.first)} must commit first.`
            : null;
        break;
      case "moved":
        text = k.value.seat === names.mySeat ? null : `${names.subj(k.value.seat)} committed a card.`;
        break;
      case "moveSealed":
        text =
          k.value.card === MastermindsCard.BLUFF
            ? `You played Bluff, shown as ${cardName(k.value.shownAs)}.`
            : `You played ${cardName(k.value.card)}.`;
        break;
      case "told":
        text = `Warp Time: ${names.obj(1 - k.value.seat)} shows ${cardName(k.value.card)}.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        break;
      case "late":
        text = k.value.seats.map((s) => `${names.subj(s)} missed the deadline: a random card was played.`).join(" ");
        break;
      case "turnResolved": {
        const r = k.value;
        const shown = [cardName(r.shown0), cardName(r.shown1)];
        const p = pair(r.points);
        text = `Turn ${r.turn}: ${names.obj(a)} showed ${shown[a]}, ${names.obj(b)} showed ${shown[b]}: ${
          r.winner !== undefined ? `${names.obj(r.winner)} won the turn` : "a tie"
        }. Points: ${names.obj(a)} ${p[a]}, ${names.obj(b)} ${p[b]}.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        strong = true;
        break;
      }
      case "revealed": {
        const s = pair(k.value.strengths);
        text = `Reveal: in turn ${k.value.turn} the cards had strength ${s[a]} (${names.poss(a)}) and ${s[b]} (${names.poss(b)}).`;
        strong = true;
        break;
      }
      case "bluffOuted":
        text = `${names.poss(k.value.seat)} card in turn ${k.value.turn} was a Bluff${
          k.value.claimed !== MastermindsCard.UNSPECIFIED ? ` (it claimed ${cardName(k.value.claimed)})` : ""
        }.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        break;
      case "boutEnded": {
        const x = k.value;
        const p = pair(x.points);
        const w = pair(x.boutWins);
        text = `Bout ${x.bout}: ${
          x.winner !== undefined ? `${names.obj(x.winner)} won it ${endWords(x.end)}` : "a tie"
        } (points ${p[a]}–${p[b]}). Bouts won: ${names.obj(a)} ${w[a]}, ${names.obj(b)} ${w[b]}.`;
        strong = true;
        break;
      }
      case undefined:
        break;
    }
    if (text) lines.push({ key, text, private: e.private, strong });
  }
  return lines;
}

/** Resolved turns as this viewer saw them, newest first. */
function History({ turns, names }: { turns: MastermindsTurn[]; names: Names }) {
  const order = seatOrder(names);
  return (
    <div class="tablewrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Turn</th>
            {order.map((s) => (
              <th scope="col" key={s}>
                {s === names.mySeat ? "You" : names.colour(s)}
              </th>
            ))}
            <th scope="col">Winner</th>
            <th scope="col">Points</th>
            <th scope="col">Reveal</th>
          </tr>
        </thead>
        <tbody>
          {[...turns].reverse().map((t) => {
            const cs = [seen(t.card0), seen(t.card1)];
            const p = pair(t.points);
            const rv = t.revealed ? pair(t.revealed) : null;
            return (
              <tr key={`${t.bout}.${t.turn}`}>
                <td>
                  {t.bout}.{t.turn}
                  {t.first !== undefined ? " (warp)" : ""}
                </td>
                {order.map((s) => (
                  <td key={s}>
                    {cs[s]}
                    {t.late.includes(s) ? " (late)" : ""}
                  </td>
                ))}
                <td>{t.winner !== undefined ? names.subj(t.winner) : "tie"}</td>
                <td>
                  {p[order[0]]}–{p[order[1]]}
                </td>
                <td>{rv ? `${rv[order[0]]}–${rv[order[1]]}` : ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function Board({ resp, names, canMove, submit }: BoardProps) {
  const v = viewOf(resp);
  const [card, setCard] = useState<MastermindsCard | null>(null);
  const [as, setAs] = useState<MastermindsCard | null>(null);
  const moves = legal(resp, "masterminds");
  const playable = new Set(moves.map((m) => m.card));
  const bluffs = moves.filter((m) => m.card === MastermindsCard.BLUFF).map((m) => m.shownAs);
  const chosen = canMove && card !== null && playable.has(card) ? card : null;
  const ready = chosen !== null && (chosen !== MastermindsCard.BLUFF || (as !== null && bluffs.includes(as)));
  const play = () => {
    if (!ready || chosen === null) return;
    submit({
      game: {
        case: "masterminds",
        value: { card: chosen, shownAs: chosen === MastermindsCard.BLUFF ? as ?? MastermindsCard.UNSPECIFIED : MastermindsCard.UNSPECIFIED },
      },
    });
    setCard(null);
    setAs(null);
  };
  useKeys(canMove, (e) => {
    const letter = e.key.toUpperCase();
    const c = ALL.find((x) => cardName(x).startsWith(letter) && letter.length === 1);
    if (c !== undefined && playable.has(c)) {
      setCard(c);
      focusAction();
      return true;
    }
    return enterPlays(e, ready, play);
  });
  if (!v) return null;
  const me = names.mySeat;
  const order = seatOrder(names);
  const hand = v.myHand ? [...v.myHand.cards] : null;
  const str = v.myStrengths;
  const lastTurn = v.history.length ? v.history[v.history.length - 1] : undefined;
  const lastText = lastTurn
    ? (() => {
        const cs = [seen(lastTurn.card0), seen(lastTurn.card1)];
        const rv = lastTurn.revealed ? pair(lastTurn.revealed) : null;
        const [a, b] = order;
        return `Bout ${lastTurn.bout}, turn ${lastTurn.turn}: ${names.obj(a)} played ${cs[a]}, ${names.obj(b)} ${cs[b]}: ${
          lastTurn.winner !== undefined ? `${names.obj(lastTurn.winner)} won` : "a tie"
        }${rv ? `; Reveal showed strengths ${rv[a]} and ${rv[b]}` : ""}.`;
      })()
    : null;
  const mustWait = v.first !== undefined && me !== undefined && v.first !== me && !v.moved.includes(v.first);
  return (
    <div class="board masterminds">
      <section class="table" aria-label="Turn">
        <p class="status">
          Bout {v.bout} of 7 · {resp.outcome ? `${v.turn} turns played` : `turn ${v.turn + 1} of 9`}
          {v.first !== undefined && ` · Warp Time: ${names.obj(v.first)} commit${v.first === me ? "" : "s"} first`}
        </p>
        <p class="moved" aria-live="polite">
          {order
            .map((s) =>
              v.moved.includes(s)
                ? s === me && v.myMove
                  ? `You played ${cardName(v.myMove.card)}${
                      v.myMove.card === MastermindsCard.BLUFF ? ` (shown as ${cardName(v.myMove.shownAs)})` : ""
                    }.`
                  : `${names.subj(s)} has committed.`
                : resp.outcome
                  ? ""
                  : `${names.subj(s)} ${s === me ? "have" : "has"} not committed yet.`,
            )
            .join(" ")}
          {v.told !== MastermindsCard.UNSPECIFIED && ` Warp Time shows you their card: ${cardName(v.told)}.`}
          {mustWait && " Wait for their card first."}
        </p>
      </section>
      <LastResult text={lastText} />
      {hand && str && (
        <section class="hand mine" aria-label="Your cards">
          <h3>Your cards (strengths only you know)</h3>
          <div class="cards mmcards">
            {ALL.map((c) => {
              const info = INFO[c];
              const held = hand.includes(c);
              return (
                <CardFace
                  key={c}
                  kind={`mm${held ? "" : " spent"}`}
                  rank={
                    <>
                      <span class="mmstr">{str[info.key]}</span>
                      <span class="mmname">{info.name}</span>
                    </>
                  }
                  sub={info.effect}
                  hint={info.name[0]}
                  label={`${info.name}, strength ${str[info.key]}${held ? "" : ", played this bout"}: ${info.effect}`}
                  selected={chosen === c}
                  disabled={!canMove || !playable.has(c)}
                  onClick={() => setCard(c)}
                />
              );
            })}
          </div>
          {chosen === MastermindsCard.BLUFF && (
            <fieldset class="bluff">
              <legend>Show your Bluff as</legend>
              {bluffs.map((b) => (
                <button key={b} type="button" aria-pressed={as === b} class={as === b ? "selected" : ""} onClick={() => setAs(b)}>
                  {cardName(b)}
                </button>
              ))}
            </fieldset>
          )}
          {canMove && (
            <div class="actions">
              <button type="button" class="primary" disabled={!ready} onClick={play}>
                {chosen === null
                  ? "Choose a card"
                  : ready
                    ? `Play ${cardName(chosen)}${chosen === MastermindsCard.BLUFF && as !== null ? ` as ${cardName(as)}` : ""}`
                    : "Choose what your Bluff shows"}
              </button>
              <span class="muted keys">Keys: each card's first letter, Enter plays.</span>
            </div>
          )}
        </section>
      )}
      <section class="panel history" aria-label="Turns so far">
        <h3>Turns so far</h3>
        {v.history.length === 0 ? (
          <p class="muted">No turn has been played yet.</p>
        ) : (
          <>
            <History turns={v.history.filter((t) => t.bout === v.bout)} names={names} />
            {v.history.some((t) => t.bout !== v.bout) && (
              <details>
                <summary>Earlier bouts</summary>
                <History turns={v.history.filter((t) => t.bout !== v.bout)} names={names} />
              </details>
            )}
          </>
        )}
      </section>
    </div>
  );
}

export const masterminds: GameUI = {
  title: "Masterminds Duel",
  Board,
  narrate: story,
  finalScore(resp, names) {
    const v = viewOf(resp);
    if (!v) return "";
    const w = pair(v.boutWins);
    const [a, b] = seatOrder(names);
    return `Bouts won: ${names.obj(a)} ${w[a]}, ${names.obj(b)} ${w[b]}`;
  },
  seat(resp, seat) {
    const v = viewOf(resp);
    if (!v) return null;
    const p = pair(v.points)[seat];
    const w = pair(v.boutWins)[seat];
    return {
      value: p,
      aria: `${plural(p, "point")} this bout, ${plural(w, "bout")} won of 4 needed${v.priority === seat ? ", has priority" : ""}`,
      extra: (
        <>
          <Pips won={w} of={4} /> {plural(w, "bout")} won{v.priority === seat ? " · priority" : ""}
        </>
      ),
    };
  },
  moved: (resp) => viewOf(resp)?.moved ?? [],
};
