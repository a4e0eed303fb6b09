// GOPS (Goofspiel) as cards: the prize face up (with what rolled over), the viewer's hand
// as buttons (number keys too: 1-9, 0 for 10, J Q K), the other hand (public: every spent
// card was shown), the prizes still face down, the scores (kept in half points by the API).
import { useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import { GopsTies, type GopsView } from "../gen/colosseum/v1/gops_pb.js";
import {
  type BoardProps,
  CardFace,
  type Entry,
  type GameUI,
  LastResult,
  type Names,
  cards,
  digitOf,
  enterPlays,
  focusAction,
  halves,
  legal,
  num,
  pair,
  plural,
  seatOrder,
  useKeys,
} from "./common.js";
import { commonEntry, keyOf, type Line } from "./log.js";

const RANKS: Record<number, string> = { 1: "A", 11: "J", 12: "Q", 13: "K" };
/** A card's face: A, 2..10, J, Q, K. */
export function rank(v: number): string {
  return RANKS[v] ?? String(v);
}

function viewOf(resp: GetViewResponse): GopsView | null {
  return resp.view?.game.case === "gops" ? resp.view.game.value : null;
}

function tiesWord(t: GopsTies): string {
  switch (t) {
    case GopsTies.DISCARD:
      return "tied bids discard the prize";
    case GopsTies.SPLIT:
      return "tied bids split the prize";
    case GopsTies.ROLLOVER:
    case GopsTies.UNSPECIFIED:
      return "tied bids roll the prize over to the next one";
  }
}

/** The log's lines, and the last round's result in words. */
function story(entries: Entry[], names: Names): { lines: Line[]; last: string | null } {
  const lines: Line[] = [];
  let prize = 0;
  let pile = 0;
  let ties = GopsTies.ROLLOVER;
  let last: string | null = null;
  for (const e of entries) {
    const common = commonEntry(e, names);
    if (common) {
      lines.push(common);
      continue;
    }
    const key = keyOf(e);
    if (e.event.kind.case !== "gops") continue;
    const k = e.event.kind.value.kind;
    let text: string | null = null;
    let strong = false;
    switch (k.case) {
      case "setup":
        ties = k.value.ties;
        text = `GOPS with ${k.value.cards} cards in each hand; ${tiesWord(k.value.ties)}.`;
        break;
      case "roundStarted":
        prize = k.value.prize;
        pile = k.value.pile;
        text = `Round ${k.value.round}: the prize is the ${rank(prize)}${pile ? `, with ${plural(pile, "rolled-over point")}` : ""}.`;
        break;
      case "moved":
        text = k.value.seat === names.mySeat ? null : `${names.subj(k.value.seat)} sealed a bid.`;
        break;
      case "bidSealed":
        text = `You sealed your bid: ${rank(k.value.card)}.`;
        break;
      case "revealed": {
        const r = k.value;
        const [b0, b1] = pair(r.bids);
        const bids = [b0, b1];
        const score = pair(r.scoreHalves);
        const won = prize + pile;
        const what = `the ${rank(prize)} prize${pile ? ` and ${plural(pile, "rolled-over point")}` : ""}`;
        if (r.winner !== undefined) {
          const w = r.winner;
          const l = 1 - w;
          last = `${names.subj(w)} bid ${rank(bids[w])} and won ${what} (${plural(won, "point")}); ${names.obj(l)} bid ${rank(bids[l])}.`;
        } else {
          const after =
            ties === GopsTies.DISCARD
              ? "the prize is discarded"
              : ties === GopsTies.SPLIT
                ? `the prize is split, ${halves(won)} points each`
                : "the prize rolls over to the next round";
          last = `both bid ${rank(b0)}: ${after}.`;
          last = last.charAt(0).toUpperCase() + last.slice(1);
        }
        const [a, b] = seatOrder(names);
        text = `Round ${r.round}: ${last} Score: ${names.obj(a)} ${halves(score[a])}, ${names.obj(b)} ${halves(score[b])}.`;
        strong = true;
        break;
      }
      case "late": {
        const seats = k.value.seats;
        text =
          seats.length === 2
            ? "Both players missed the deadline."
            : seats.map((s) => `${names.subj(s)} missed the deadline.`).join(" ");
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
  const [chosen, setChosen] = useState<number | null>(null);
  const playable = new Set(legal(resp, "gops").map((m) => num(m.card)));
  const choice = chosen !== null && playable.has(chosen) && canMove ? chosen : null;
  const bid = (c: number) => submit({ game: { case: "gops", value: { card: BigInt(c) } } });
  const { last } = story(events, names);

  useKeys(canMove, (e) => {
    let c = digitOf(e, true);
    if (c === null) {
      const k = e.key.toLowerCase();
      c = k === "a" ? 1 : k === "j" ? 11 : k === "q" ? 12 : k === "k" ? 13 : null;
    }
    if (c !== null && playable.has(c)) {
      setChosen(c);
      focusAction();
      return true;
    }
    return enterPlays(e, choice !== null, () => {
      if (choice !== null) bid(choice);
    });
  });

  if (!v) return null;
  const me = names.mySeat;
  const hands = [cards(v.hand0), cards(v.hand1)];
  const all = Array.from({ length: v.cards }, (_, i) => i + 1);
  const keyHint = (c: number) => (c <= 9 ? String(c) : c === 10 ? "0" : rank(c));
  const order = seatOrder(names);
  return (
    <div class="board gops">
      <section class="table" aria-label="Prize">
        <p class="status">
          {v.prize !== undefined ? `Round ${v.round + 1} of ${v.cards}` : `${v.round} of ${v.cards} rounds played`}
        </p>
        {v.prize !== undefined ? (
          <CardFace
            kind="prize"
            rank={rank(v.prize)}
            sub={v.pile ? `+${v.pile} rolled over` : `${plural(v.prize, "point")}`}
            label={`Prize: ${rank(v.prize)}, worth ${plural(v.prize + v.pile, "point")}${v.pile ? ` with ${v.pile} rolled over` : ""}`}
          />
        ) : resp.outcome ? null : (
          <p class="muted">No prize is up.</p>
        )}
        <p class={`moved${v.prize === undefined ? " empty" : ""}`} aria-live="polite">
          {order
            .map((s) =>
              v.moved.includes(s)
                ? s === me
                  ? `You sealed ${v.myBid !== undefined ? rank(v.myBid) : "your bid"}.`
                  : `${names.subj(s)} has sealed a bid.`
                : v.prize !== undefined
                  ? `${names.subj(s)} ${s === me ? "have" : "has"} not bid yet.`
                  : "",
            )
            .join(" ")}
        </p>
      </section>
      <LastResult text={last} />
      {me !== undefined && hands[me].length > 0 && (
        <section class="hand mine" aria-label="Your hand">
          <h3>Your hand</h3>
          <div class="cards">
            {hands[me].map((c) => (
              <CardFace
                key={c}
                kind={`seat${me}`}
                rank={rank(c)}
                label={`Bid ${rank(c)}`}
                hint={keyHint(c)}
                selected={choice === c || (v.myBid === c && !canMove)}
                disabled={!canMove || !playable.has(c)}
                onClick={() => setChosen(c)}
              />
            ))}
          </div>
          {canMove && (
            <div class="actions">
              <button
                type="button"
                class="primary"
                disabled={choice === null}
                onClick={() => choice !== null && bid(choice)}
              >
                {choice === null ? "Choose a card to bid" : `Seal bid: ${rank(choice)}`}
              </button>
              <span class="muted keys">Keys: 1–9, 0 for 10, J Q K; Enter seals.</span>
            </div>
          )}
        </section>
      )}
      {order
        .filter((s) => s !== me)
        .map((s) => (
          <section class="hand theirs" key={s} aria-label={`${names.poss(s)} hand`}>
            <h3>
              {names.label(s)}: {plural(hands[s].length, "card")} left
            </h3>
            <div class="cards small">
              {all.map((c) => {
                const has = hands[s].includes(c);
                return (
                  <CardFace
                    key={c}
                    kind={`small seat${s}${has ? "" : " spent"}`}
                    rank={rank(c)}
                    label={`${rank(c)} ${has ? "still held" : "spent"}`}
                  />
                );
              })}
            </div>
          </section>
        ))}
      {cards(v.prizesLeft).length > 0 && (
      <section class="hand prizes" aria-label="Prizes still face down">
        <h3>Prizes to come ({cards(v.prizesLeft).length}, order hidden)</h3>
        <div class="cards small">
          {cards(v.prizesLeft).map((c) => (
            <CardFace key={c} kind="small prize" rank={rank(c)} label={`Prize ${rank(c)} to come`} />
          ))}
        </div>
      </section>
      )}
    </div>
  );
}

export const gops: GameUI = {
  title: "GOPS",
  Board,
  narrate: (entries, names) => story(entries, names).lines,
  finalScore(resp, names) {
    const v = viewOf(resp);
    if (!v) return "";
    const s = pair(v.scoreHalves);
    const [a, b] = seatOrder(names);
    return `${names.subj(a)} ${halves(s[a])}, ${names.obj(b)} ${halves(s[b])}`;
  },
  seat(resp, seat) {
    const v = viewOf(resp);
    if (!v) return null;
    const h = halves(pair(v.scoreHalves)[seat]);
    return { value: h, aria: `${h} points` };
  },
  moved: (resp) => viewOf(resp)?.moved ?? [],
};
