// Hexspiel as an SVG hex board: the 8x8 rhombus (Blue joins rows 1 and 8, Red columns a
// and h), each cell's AP cost, the stones; the AP banks, the set's prizes and cards, the
// patterns claimed. Bids are cards to click (number keys too); a Hex turn is cells to pick
// (focusable, Enter or Space), checked against the view's legal moves, with any pattern
// the picked stones complete offered alongside.
import { useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import {
  HexspielPatternKind,
  HexspielTurn,
  type HexspielView,
} from "../gen/colosseum/v1/hexspiel_pb.js";
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
  legal,
  num,
  pair,
  plural,
  seatOrder,
  useKeys,
} from "./common.js";
import { commonEntry, keyOf, type Line } from "./log.js";

const COLS = "abcdefgh";
/** The AP on each prize, by worth (the rules text's prize cards). */
const PRIZE_AP: Record<number, number> = { 1: 8, 2: 7, 3: 6, 4: 5, 5: 5, 6: 4, 7: 4 };

function viewOf(resp: GetViewResponse): HexspielView | null {
  return resp.view?.game.case === "hexspiel" ? resp.view.game.value : null;
}

/** "c3" -> [column 0..7, row 0..7]. */
function parseCell(c: string): [number, number] {
  return [COLS.indexOf(c[0]), Number(c.slice(1)) - 1];
}
function cellName(col: number, row: number): string {
  return `${COLS[col]}${row + 1}`;
}

export function patternName(k: HexspielPatternKind): string {
  switch (k) {
    case HexspielPatternKind.ROW5:
      return "5 in a row";
    case HexspielPatternKind.RING6:
      return "ring of 6";
    case HexspielPatternKind.Y7:
      return "Y of 7";
    case HexspielPatternKind.UNSPECIFIED:
      return "pattern";
  }
}

/** The card a pattern upgrades, and its new effect. */
const UPGRADE: Record<number, { card: number; effect: string }> = {
  [HexspielPatternKind.ROW5]: { card: 4, effect: "+4 AP if it wins" },
  [HexspielPatternKind.RING6]: { card: 9, effect: "−1 AP if it wins" },
  [HexspielPatternKind.Y7]: { card: 2, effect: "+1 AP when played" },
};
const BASE_EFFECT: Record<number, string> = { 1: "+1 AP when played", 8: "−1 AP if it wins", 9: "−2 AP if it wins" };

/** A bidding card's effect for a seat with these upgrades. */
function effect(card: number, upgrades: HexspielPatternKind[]): string {
  for (const u of upgrades) if (UPGRADE[u]?.card === card) return UPGRADE[u].effect;
  return BASE_EFFECT[card] ?? "";
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
    if (e.event.kind.case !== "hexspiel") continue;
    const k = e.event.kind.value.kind;
    let text: string | null = null;
    let strong = false;
    const [a, b] = seatOrder(names);
    switch (k.case) {
      case "setup":
        text = `Hexspiel: Blue joins rows 1 and 8, Red joins columns a and h. Both start with ${k.value.startAp} AP; a Hex turn placing fewer than two stones may leave at most ${k.value.apCap} AP; the set bonus is ${k.value.setBonus} AP.`;
        break;
      case "setStarted":
        text = `Set ${k.value.set} begins: the prizes are reshuffled and the bidding cards return to hand.`;
        break;
      case "roundStarted":
        text = `Set ${k.value.set}, round ${k.value.round}: the prize is worth ${k.value.prize} and carries ${k.value.prizeAp} AP.`;
        break;
      case "moved":
        text = k.value.seat === names.mySeat ? null : `${names.subj(k.value.seat)} sealed a bid.`;
        break;
      case "bidSealed":
        text = `You bid your ${k.value.card}.`;
        break;
      case "revealed": {
        const r = k.value;
        const bids = pair(r.bids);
        const ap = pair(r.ap);
        const gained = pair(r.gained);
        const late = r.late.length ? ` ${r.late.map((s) => `${names.subj(s)} missed the deadline, so a random card was played.`).join(" ")}` : "";
        const head = `${names.subj(a)} bid ${bids[a]}, ${names.obj(b)} bid ${bids[b]}`;
        const res =
          r.winner !== undefined
            ? `${names.obj(r.winner)} won the prize (+${gained[r.winner]} AP) and the Hex turn`
            : `a tie: the prize's AP is shared (+${gained[0]} and +${gained[1]}) and nobody gets a Hex turn`;
        text = `Round ${r.round}: ${head}: ${res}.${late} AP: ${names.obj(a)} ${ap[a]}, ${names.obj(b)} ${ap[b]}.`;
        strong = true;
        break;
      }
      case "setBonus": {
        const w = pair(k.value.worth);
        text =
          k.value.seat !== undefined
            ? `End of the set: ${names.obj(k.value.seat)} won more worth (${w[k.value.seat]} to ${w[1 - k.value.seat]}) and gets the ${k.value.bonus} AP bonus.`
            : `End of the set: equal worth (${w[0]} each), no bonus.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        break;
      }
      case "hexTurn":
        text = `${names.subj(k.value.seat)} may now place stones.`;
        break;
      case "placed":
        text = k.value.cells.length
          ? `${names.subj(k.value.seat)} placed ${k.value.cells.join(" and ")} for ${k.value.cost} AP (${k.value.ap} left).`
          : `${names.subj(k.value.seat)} placed no stone (${k.value.ap} AP kept).`;
        strong = true;
        break;
      case "patternClaimed":
        text = `${names.subj(k.value.seat)} declared a ${patternName(k.value.kind)} (${k.value.cells.join(", ")}) and upgraded the ${k.value.card} card.`;
        strong = true;
        break;
      case "hexMissed":
        text = `${names.subj(k.value.seat)} missed the Hex turn${k.value.overCap ? ` holding ${k.value.ap} AP, over the cap, and lost` : ""}.`;
        break;
      case "connected":
        text = `${names.subj(k.value.seat)} joined both sides.`;
        strong = true;
        break;
      case undefined:
        break;
    }
    if (text) lines.push({ key, text, private: e.private, strong });
  }
  return lines;
}

const SIZE = 20;
const W = Math.sqrt(3) * SIZE;
function centre(col: number, row: number): [number, number] {
  return [W * (col + row / 2) + W, 1.5 * SIZE * row + SIZE + 16];
}
function hexPoints(cx: number, cy: number, s = SIZE): string {
  const h = (Math.sqrt(3) / 2) * s;
  return [
    [cx + h, cy - s / 2],
    [cx + h, cy + s / 2],
    [cx, cy + s],
    [cx - h, cy + s / 2],
    [cx - h, cy - s / 2],
    [cx, cy - s],
  ]
    .map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`)
    .join(" ");
}

/** The board's outer edges in each seat's colour. */
function Edges() {
  const h = (Math.sqrt(3) / 2) * SIZE;
  const top: string[] = [];
  const bottom: string[] = [];
  const left: string[] = [];
  const right: string[] = [];
  for (let i = 0; i < 8; i++) {
    const [tx, ty] = centre(i, 0);
    top.push(`${tx - h},${ty - SIZE / 2} ${tx},${ty - SIZE} ${tx + h},${ty - SIZE / 2}`);
    const [bx, by] = centre(i, 7);
    bottom.push(`${bx - h},${by + SIZE / 2} ${bx},${by + SIZE} ${bx + h},${by + SIZE / 2}`);
    const [lx, ly] = centre(0, i);
    left.push(`${lx},${ly - SIZE} ${lx - h},${ly - SIZE / 2} ${lx - h},${ly + SIZE / 2} ${lx},${ly + SIZE}`);
    const [rx, ry] = centre(7, i);
    right.push(`${rx},${ry - SIZE} ${rx + h},${ry - SIZE / 2} ${rx + h},${ry + SIZE / 2} ${rx},${ry + SIZE}`);
  }
  return (
    <g class="edges" aria-hidden="true">
      <polyline class="edge seat0" points={top.join(" ")} />
      <polyline class="edge seat0" points={bottom.join(" ")} />
      <polyline class="edge seat1" points={left.join(" ")} />
      <polyline class="edge seat1" points={right.join(" ")} />
    </g>
  );
}

interface HexMove {
  place: string[];
  pattern?: { kind: HexspielPatternKind; cells: string[] };
}
const setKey = (cells: string[]) => [...cells].sort().join(",");

function Board({ resp, names, events: _events, canMove, submit }: BoardProps) {
  const v = viewOf(resp);
  const [sel, setSel] = useState<string[]>([]);
  const [pat, setPat] = useState<number>(-1);
  const [bid, setBid] = useState<number | null>(null);
  const moves = legal(resp, "hexspiel");
  const bids = new Set<number>();
  const hexMoves: HexMove[] = [];
  for (const m of moves) {
    if (m.kind.case === "bid") bids.add(num(m.kind.value));
    else if (m.kind.case === "hex") {
      const p = m.kind.value.pattern;
      hexMoves.push({
        place: [...m.kind.value.place],
        pattern: p && p.kind !== HexspielPatternKind.UNSPECIFIED ? { kind: p.kind, cells: [...p.cells] } : undefined,
      });
    }
  }
  const hexTurn = canMove && hexMoves.length > 0;
  const bidTurn = canMove && bids.size > 0;
  // Keep only the picked cells some legal move still has.
  const picked = hexTurn ? sel : [];
  const sk = setKey(picked);
  const exact = hexMoves.filter((m) => setKey(m.place) === sk);
  const plain = exact.find((m) => !m.pattern);
  const patterns = exact.filter((m) => m.pattern);
  const chosenPattern = pat >= 0 && pat < patterns.length ? patterns[pat] : undefined;
  const selectable = (cell: string) =>
    hexTurn &&
    (picked.includes(cell) ||
      (picked.length < 2 && hexMoves.some((m) => m.place.includes(cell) && picked.every((p) => m.place.includes(p)))));
  const toggle = (cell: string) => {
    if (!selectable(cell)) return;
    setSel(picked.includes(cell) ? picked.filter((c) => c !== cell) : [...picked, cell]);
    setPat(-1);
  };
  const place = (m: HexMove | undefined) => {
    if (!m) return;
    submit({
      game: {
        case: "hexspiel",
        value: { kind: { case: "hex", value: { place: m.place, pattern: m.pattern } } },
      },
    });
    setSel([]);
    setPat(-1);
  };
  const sealBid = (c: number) => {
    submit({ game: { case: "hexspiel", value: { kind: { case: "bid", value: BigInt(c) } } } });
    setBid(null);
  };
  const chosenBid = bid !== null && bids.has(bid) && bidTurn ? bid : null;
  useKeys(bidTurn, (e) => {
    const d = digitOf(e);
    if (d !== null && bids.has(d)) {
      setBid(d);
      focusAction();
      return true;
    }
    return enterPlays(e, chosenBid !== null, () => {
      if (chosenBid !== null) sealBid(chosenBid);
    });
  });
  if (!v) return null;
  const me = names.mySeat;
  const order = seatOrder(names);
  const ap = pair(v.ap);
  const costs = [...v.costs];
  const costOf = (c: string) => {
    const [col, row] = parseCell(c);
    return costs[8 * row + col] ?? 0;
  };
  const owner = new Map<string, number>();
  for (const s of v.stones0) owner.set(s, 0);
  for (const s of v.stones1) owner.set(s, 1);
  const upgrades = [[...v.upgrades0], [...v.upgrades1]];
  const played = [cards(v.played0), cards(v.played1)];
  const highlight = new Set(chosenPattern?.pattern?.cells ?? []);
  const spend = picked.reduce((t, c) => t + costOf(c), 0);
  const last = v.last;
  const lastText = last
    ? (() => {
        const b = pair(last.bids);
        const [x, y] = order;
        const late = last.late.length ? ` (${last.late.map((s) => names.obj(s)).join(" and ")} missed the deadline)` : "";
        return `${names.subj(x)} bid ${b[x]}, ${names.obj(y)} bid ${b[y]}${late}: ${
          last.winner !== undefined ? `${names.obj(last.winner)} won the worth-${last.prize} prize` : `a tie for the worth-${last.prize} prize`
        }.`;
      })()
    : null;
  const turnText =
    v.toMove === HexspielTurn.BID
      ? "Both players bid for the prize."
      : v.toMove === HexspielTurn.HEX_SEAT0 || v.toMove === HexspielTurn.HEX_SEAT1
        ? `${names.subj(v.toMove === HexspielTurn.HEX_SEAT0 ? 0 : 1)} ${
            (v.toMove === HexspielTurn.HEX_SEAT0 ? 0 : 1) === me ? "have" : "has"
          } the Hex turn: up to two stones.`
        : "The match is over.";
  const minX = 0;
  const maxX = centre(7, 7)[0] + W;
  const maxY = centre(7, 7)[1] + SIZE + 8;
  return (
    <div class="board hexspiel">
      <section class="table" aria-label="Prize">
        <p class="status">
          Set {v.set} · round {v.prize !== undefined ? v.round + 1 : v.round} of 7 · {turnText}
        </p>
        {v.prize !== undefined && (
          <CardFace
            kind="prize"
            rank={v.prize}
            sub={`+${PRIZE_AP[v.prize] ?? "?"} AP`}
            label={`Prize worth ${v.prize}, carrying ${PRIZE_AP[v.prize] ?? "some"} AP`}
          />
        )}
        {v.toMove === HexspielTurn.BID && (
          <p class="moved" aria-live="polite">
            {order
              .map((s) =>
                v.moved.includes(s)
                  ? s === me
                    ? `You bid ${v.myBid ?? ""}.`
                    : `${names.subj(s)} has bid.`
                  : `${names.subj(s)} ${s === me ? "have" : "has"} not bid yet.`,
              )
              .join(" ")}
          </p>
        )}
        {cards(v.prizesLeft).length > 0 && <p class="muted caption">Prizes to come this set (order hidden):</p>}
        <div class="cards small" aria-label="Prizes of this set to come">
          {cards(v.prizesLeft).map((p) => (
            <CardFace key={p} kind="small prize" rank={p} sub={`${PRIZE_AP[p] ?? ""}AP`} label={`Prize worth ${p} to come`} />
          ))}
        </div>
      </section>
      <LastResult text={lastText} />
      <svg
        class="hexboard"
        viewBox={`${minX} 0 ${maxX} ${maxY}`}
        role="group"
        aria-label={`Hex board: Blue has ${plural(v.stones0.length, "stone")}, Red has ${plural(v.stones1.length, "stone")}`}
      >
        <Edges />
        {Array.from({ length: 8 }, (_, i) => {
          const [x, y] = centre(i, 0);
          return (
            <text key={`c${i}`} class="coord" x={x} y={y - SIZE - 4} text-anchor="middle" aria-hidden="true">
              {COLS[i]}
            </text>
          );
        })}
        {Array.from({ length: 8 }, (_, i) => {
          const [x, y] = centre(0, i);
          return (
            <text key={`r${i}`} class="coord" x={x - W / 2 - 10} y={y + 4} text-anchor="middle" aria-hidden="true">
              {i + 1}
            </text>
          );
        })}
        {Array.from({ length: 64 }, (_, idx) => {
          const col = idx % 8;
          const row = Math.floor(idx / 8);
          const name = cellName(col, row);
          const [cx, cy] = centre(col, row);
          const who = owner.get(name);
          const cost = costs[idx] ?? 0;
          const can = selectable(name);
          const on = picked.includes(name);
          const cls = `cell${who !== undefined ? ` stone${who}` : ""}${can ? " pickable" : ""}${on ? " picked" : ""}${highlight.has(name) ? " pattern" : ""}`;
          const label = `${name}: ${who !== undefined ? `${names.colour(who)} stone` : `empty, costs ${cost} AP`}${on ? ", picked" : ""}`;
          return (
            <g key={name} class={cls}>
              <polygon
                points={hexPoints(cx, cy)}
                {...(can
                  ? {
                      tabIndex: 0,
                      role: "button",
                      "aria-pressed": on,
                      onClick: () => toggle(name),
                      onKeyDown: (e: KeyboardEvent) => {
                        if (e.key === "Enter" || e.key === " ") {
                          e.preventDefault();
                          toggle(name);
                        }
                      },
                    }
                  : { role: "img" })}
                aria-label={label}
              />
              {who !== undefined ? (
                <circle class={`stone seat${who}`} cx={cx} cy={cy} r={SIZE * 0.55} aria-hidden="true" />
              ) : (
                <text class="cost" x={cx} y={cy + 4} text-anchor="middle" aria-hidden="true">
                  {cost}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      {hexTurn && (
        <section class="panel hexturn" aria-label="Your Hex turn">
          <p>
            Pick up to two empty cells on the board ({ap[me!]} AP to spend).{" "}
            {picked.length > 0 && `Picked: ${picked.join(", ")} for ${spend} AP, leaving ${ap[me!] - spend}.`}
          </p>
          {patterns.length > 0 && (
            <fieldset class="patterns">
              <legend>Declare a pattern these stones complete</legend>
              <label>
                <input type="radio" name="pattern" checked={pat < 0} onChange={() => setPat(-1)} /> No pattern
              </label>
              {patterns.map((m, i) => (
                <label key={i}>
                  <input type="radio" name="pattern" checked={pat === i} onChange={() => setPat(i)} />{" "}
                  {patternName(m.pattern!.kind)}: {m.pattern!.cells.join(" ")} (upgrades your{" "}
                  {UPGRADE[m.pattern!.kind]?.card} card)
                </label>
              ))}
            </fieldset>
          )}
          <div class="actions">
            <button
              type="button"
              class="primary"
              disabled={!(chosenPattern ?? plain)}
              onClick={() => place(chosenPattern ?? plain)}
            >
              {picked.length === 0
                ? "Place no stone"
                : `Place ${picked.join(" and ")} (${spend} AP)${chosenPattern ? ` and declare the ${patternName(chosenPattern.pattern!.kind)}` : ""}`}
            </button>
            {picked.length > 0 && (
              <button type="button" onClick={() => setSel([])}>
                Clear
              </button>
            )}
          </div>
          {!plain && !chosenPattern && picked.length === 0 && (
            <p class="muted">You hold more than {v.apCap} AP: you must place stones.</p>
          )}
        </section>
      )}
      {me !== undefined && v.hand && (
        <section class="hand mine" aria-label="Your bidding cards">
          <h3>Your bidding cards</h3>
          <div class="cards">
            {cards(v.hand).map((c) => (
              <CardFace
                key={c}
                kind={`seat${me}`}
                rank={c}
                sub={effect(c, upgrades[me]) || " "}
                hint={String(c)}
                label={`Bid ${c}${effect(c, upgrades[me]) ? `: ${effect(c, upgrades[me])}` : ""}`}
                selected={chosenBid === c || (v.myBid === c && !bidTurn)}
                disabled={!bidTurn || !bids.has(c)}
                onClick={() => setBid(c)}
              />
            ))}
          </div>
          {bidTurn && (
            <div class="actions">
              <button
                type="button"
                class="primary"
                disabled={chosenBid === null}
                onClick={() => chosenBid !== null && sealBid(chosenBid)}
              >
                {chosenBid === null ? "Choose a card to bid" : `Seal bid: ${chosenBid}`}
              </button>
              <span class="muted keys">Keys: 1–9 choose, Enter seals.</span>
            </div>
          )}
        </section>
      )}
      <section class="hand theirs" aria-label="Cards played this set">
        <h3>Cards played this set</h3>
        {order.map((s) => (
          <p key={s}>
            <span class={`swatch seat${s}`} aria-hidden="true" /> {names.label(s)}:{" "}
            {played[s].length ? played[s].join(", ") : "none"}
            {s !== me && ` · left: ${[1, 2, 3, 4, 5, 6, 7, 8, 9].filter((c) => !played[s].includes(c)).join(", ")}`}
          </p>
        ))}
        <details>
          <summary>Patterns and cards</summary>
          <ul>
            <li>5 in a row (five own cells in a line): your 4 becomes “+4 AP if it wins”.</li>
            <li>Ring of 6 (the six cells around one cell): your 9 becomes “−1 AP if it wins”.</li>
            <li>Y of 7 (a cell and two cells out in three directions): your 2 becomes “+1 AP when played”.</li>
            <li>Bidding cards 1–9: 1 gives +1 AP when played; 8 costs 1 AP and 9 costs 2 AP if they win.</li>
            <li>Prizes (worth: AP): {Object.entries(PRIZE_AP).map(([w, a]) => `${w}: ${a}`).join(", ")}.</li>
          </ul>
        </details>
      </section>
    </div>
  );
}

export const hexspiel: GameUI = {
  title: "Hexspiel",
  Board,
  narrate: story,
  finalScore(resp, names) {
    const v = viewOf(resp);
    if (!v) return "";
    const st = [v.stones0.length, v.stones1.length];
    const ap = pair(v.ap);
    const [a, b] = seatOrder(names);
    return `Stones: ${names.obj(a)} ${st[a]}, ${names.obj(b)} ${st[b]}; AP left: ${names.obj(a)} ${ap[a]}, ${names.obj(b)} ${ap[b]}; set ${v.set}`;
  },
  seat(resp, seat) {
    const v = viewOf(resp);
    if (!v) return null;
    const ap = pair(v.ap)[seat];
    const w = pair(v.worth)[seat];
    const ups = [...(seat === 0 ? v.upgrades0 : v.upgrades1)];
    return {
      value: `${ap} AP`,
      aria: `${ap} AP, worth ${w} this set${ups.length ? `, patterns ${ups.map(patternName).join(", ")}` : ""}`,
      extra: (
        <>
          joins {seat === 0 ? "rows 1–8" : "columns a–h"} · worth {w} this set
          {ups.length > 0 && ` · ${ups.map(patternName).join(", ")}`}
        </>
      ),
    };
  },
  moved: (resp) => viewOf(resp)?.moved ?? [],
};
