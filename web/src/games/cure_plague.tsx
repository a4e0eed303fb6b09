// Cure & Plague as its grid: every tile of the current game (human, cure, plague), each
// cell marked as the view's picture marks it (a dead human, a neutralized plague), the
// roles, the score the board would have now, finished games, items and reserve time. A
// move is picked on the grid from the view's legal moves: the cure's cell, then the
// human's, then (if still open) the plague's, with an item chosen first if any is held.
import { useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import {
  type Cell,
  CurePlagueItem,
  CurePlaguePenalty,
  CurePlagueOnTimeout,
  type CurePlagueTile,
  CurePlagueTurn,
  type CurePlagueView,
} from "../gen/colosseum/v1/cure_plague_pb.js";
import {
  type BoardProps,
  type Entry,
  type GameUI,
  LastResult,
  type Names,
  legal,
  num,
  plural,
} from "./common.js";
import { commonEntry, keyOf, type Line } from "./log.js";

function viewOf(resp: GetViewResponse): CurePlagueView | null {
  return resp.view?.game.case === "curePlague" ? resp.view.game.value : null;
}

type XY = [number, number];
const xy = (c: Cell | undefined): XY => [num(c?.x), num(c?.y)];
const at = ([x, y]: XY) => `${x},${y}`;
const showXY = ([x, y]: XY) => `(${x}, ${y})`;

export function itemName(i: CurePlagueItem): string {
  switch (i) {
    case CurePlagueItem.PERMUTE:
      return "Permute";
    case CurePlagueItem.TRANSFORM:
      return "Transform";
    case CurePlagueItem.FORCE_RUSH:
      return "Force Rush";
    case CurePlagueItem.UNSPECIFIED:
      return "no item";
  }
}
const ITEM_HELP: Record<number, string> = {
  [CurePlagueItem.PERMUTE]: "the three cells in a line, in any order",
  [CurePlagueItem.TRANSFORM]: "an L with the cure at its corner",
  [CurePlagueItem.FORCE_RUSH]: "your opponent's next move gets 30 seconds and no reserve",
};

function tripleText(h: XY, c: XY, p: XY): string {
  return `human ${showXY(h)}, cure ${showXY(c)}, plague ${showXY(p)}`;
}
function tileText(t: CurePlagueTile | undefined): string {
  return tripleText(xy(t?.human), xy(t?.cure), xy(t?.plague));
}

function story(entries: Entry[], names: Names): { lines: Line[]; last: string | null } {
  const lines: Line[] = [];
  let last: string | null = null;
  for (const e of entries) {
    const common = commonEntry(e, names);
    if (common) {
      lines.push(common);
      continue;
    }
    const key = keyOf(e);
    if (e.event.kind.case !== "curePlague") continue;
    const k = e.event.kind.value.kind;
    let text: string | null = null;
    let strong = false;
    switch (k.case) {
      case "setup": {
        const s = k.value;
        const items = [s.items0, s.items1]
          .map((it, seat) => `${names.colour(seat)}: ${it.length ? it.map(itemName).join(", ") : "none"}`)
          .join("; ");
        text = `Cure & Plague, two games with the roles swapped; ${names.colour(s.firstCure)} is Cure first. Items: ${items}.${
          s.advantage !== undefined ? ` ${names.colour(s.advantage)} holds Advantage.` : ""
        } A missed deadline ${s.onTimeout === CurePlagueOnTimeout.FORFEIT ? "loses the match" : "places a random tile"}.`;
        break;
      }
      case "gameStarted":
        text = `Game ${k.value.game}: ${names.obj(k.value.cure)} ${k.value.cure === names.mySeat ? "are" : "is"} Cure and ${
          k.value.cure === names.mySeat ? "move" : "moves"
        } first; ${names.obj(1 - k.value.cure)} ${1 - k.value.cure === names.mySeat ? "are" : "is"} Plague.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        break;
      case "tilePlaced": {
        const p = k.value;
        const item = p.item !== CurePlagueItem.UNSPECIFIED ? ` with ${itemName(p.item)}` : "";
        const who =
          p.by === undefined
            ? `A random tile was placed for ${names.obj(p.seat)}`
            : p.by !== p.seat
              ? `${names.subj(p.by)} placed ${names.poss(p.seat)} tile (the Force Rush lapsed)`
              : `${names.subj(p.seat)} placed a tile${item}`;
        last = `${who}: ${tileText(p.tile)}.`;
        text = `Tile ${p.tiles} of 21: ${last}`;
        break;
      }
      case "rushed":
        text = `${names.subj(k.value.seat)} ${k.value.seat === names.mySeat ? "are" : "is"} rushed: 30 seconds for the next tile, no reserve.`;
        break;
      case "rushLapsed":
        text = `${names.poss(k.value.by)} Force Rush on the last tile did nothing.`;
        text = text.charAt(0).toUpperCase() + text.slice(1);
        break;
      case "late": {
        const pen =
          k.value.penalty === CurePlaguePenalty.RUSHER_MOVES
            ? "the rushing player places the tile instead"
            : k.value.penalty === CurePlaguePenalty.FORFEIT
              ? "the reserve is spent and the match is lost"
              : "the reserve is spent and a random tile is placed";
        text = `${names.subj(k.value.seat)} missed the deadline: ${pen}.`;
        break;
      }
      case "gameScored":
        text = `Game ${k.value.game} is over: with ${names.obj(k.value.cure)} as Cure, ${plural(k.value.survivors, "human")} survived and ${plural(k.value.neutralized, "plague cell")} ${k.value.neutralized === 1 ? "was" : "were"} neutralized.`;
        strong = true;
        break;
      case undefined:
        break;
    }
    if (text) lines.push({ key, text, private: e.private, strong });
  }
  return { lines, last };
}

/** The picture's marks by cell: H, h (dead), C, P, p (neutralized). */
function marks(picture: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const head = /^x from (-?\d+) to (-?\d+)$/.exec(picture[0] ?? "");
  if (!head) return out;
  const x0 = Number(head[1]);
  for (const row of picture.slice(1)) {
    const m = /^\s*(-?\d+) (.*)$/.exec(row);
    if (!m) continue;
    const y = Number(m[1]);
    [...m[2]].forEach((ch, i) => {
      if (ch !== ".") out.set(at([x0 + i, y]), ch);
    });
  }
  return out;
}

interface Cand {
  human: XY;
  cure: XY;
  plague: XY;
  item: CurePlagueItem;
}

const CELL = 28;

function Glyph({ kind, x, y, mark }: { kind: "H" | "C" | "P"; x: number; y: number; mark?: string }) {
  const cx = x + CELL / 2;
  const cy = y + CELL / 2;
  if (kind === "C") {
    return (
      <path
        class="glyph cure"
        d={`M${cx - 3} ${cy - 9}h6v6h6v6h-6v6h-6v-6h-6v-6h6z`}
        aria-hidden="true"
      />
    );
  }
  if (kind === "P") {
    const dead = mark === "p";
    return (
      <g class={`glyph plague${dead ? " neutral" : ""}`} aria-hidden="true">
        <circle cx={cx} cy={cy} r={6} />
        {[0, 1, 2, 3, 4, 5, 6, 7].map((i) => {
          const a = (i * Math.PI) / 4;
          return <circle key={i} cx={cx + Math.cos(a) * 9} cy={cy + Math.sin(a) * 9} r={2} />;
        })}
      </g>
    );
  }
  const dead = mark === "h";
  return (
    <g class={`glyph human${dead ? " dead" : ""}`} aria-hidden="true">
      <circle cx={cx} cy={cy - 5} r={4} />
      <path d={`M${cx - 7} ${cy + 10}q0 -10 7 -10q7 0 7 10z`} />
      {dead && <path class="cross" d={`M${cx - 9} ${cy - 9}L${cx + 9} ${cy + 9}M${cx + 9} ${cy - 9}L${cx - 9} ${cy + 9}`} />}
    </g>
  );
}

function Board({ resp, names, events, canMove, submit }: BoardProps) {
  const v = viewOf(resp);
  const [item, setItem] = useState<CurePlagueItem>(CurePlagueItem.UNSPECIFIED);
  const [picks, setPicks] = useState<XY[]>([]);
  const all: Cand[] = legal(resp, "curePlague").map((m) => ({
    human: xy(m.human),
    cure: xy(m.cure),
    plague: xy(m.plague),
    item: m.item,
  }));
  const items = [...new Set(all.map((c) => c.item))].sort();
  const it = items.includes(item) ? item : CurePlagueItem.UNSPECIFIED;
  const pool = canMove ? all.filter((c) => c.item === it) : [];
  const steps = ["cure", "human", "plague"] as const;
  const picked = picks.slice(0, 3);
  const fit = pool.filter((c) => picked.every((p, i) => at(c[steps[i]]) === at(p)));
  const step = picked.length;
  const one = fit.length === 1 ? fit[0] : undefined;
  const next = new Set(step < 3 && !one ? fit.map((c) => at(c[steps[step]])) : []);
  const { last } = story(events, names);
  if (!v) return null;
  const me = names.mySeat;
  const mk = marks(v.picture);
  // Each tile's cells, and the extent: every tile and every cell a move could use.
  const tiles = v.tiles.map((t) => ({ human: xy(t.human), cure: xy(t.cure), plague: xy(t.plague) }));
  const kindAt = new Map<string, "H" | "C" | "P">();
  for (const t of tiles) {
    kindAt.set(at(t.human), "H");
    kindAt.set(at(t.cure), "C");
    kindAt.set(at(t.plague), "P");
  }
  // The tiles and three cells around them: every cell a new tile can reach, so the grid
  // keeps its size whoever is to move.
  const pts: XY[] = tiles.flatMap((t) => [t.human, t.cure, t.plague]).concat(pool.flatMap((c) => [c.human, c.cure, c.plague]));
  let [x0, x1, y0, y1] = [0, 0, 0, 0];
  for (const [x, y] of pts) [x0, x1, y0, y1] = [Math.min(x0, x), Math.max(x1, x), Math.min(y0, y), Math.max(y1, y)];
  const tx = tiles.flatMap((t) => [t.human[0], t.cure[0], t.plague[0]]);
  const ty = tiles.flatMap((t) => [t.human[1], t.cure[1], t.plague[1]]);
  if (tx.length) {
    x0 = Math.min(x0, Math.min(...tx) - 3);
    x1 = Math.max(x1, Math.max(...tx) + 3);
    y0 = Math.min(y0, Math.min(...ty) - 3);
    y1 = Math.max(y1, Math.max(...ty) + 3);
  }
  const px = (x: number) => (x - x0) * CELL;
  const py = (y: number) => (y1 - y) * CELL; // north up
  const width = (x1 - x0 + 1) * CELL;
  const height = (y1 - y0 + 1) * CELL;
  const lastTile = tiles.length ? tiles[tiles.length - 1] : undefined;
  const preview = one ? new Map<string, "H" | "C" | "P">([[at(one.human), "H"], [at(one.cure), "C"], [at(one.plague), "P"]]) : null;
  const pickedSet = new Set(picked.map(at));
  const place = () => {
    if (!one) return;
    const cell = ([x, y]: XY) => ({ x: BigInt(x), y: BigInt(y) });
    submit({
      game: {
        case: "curePlague",
        value: { human: cell(one.human), cure: cell(one.cure), plague: cell(one.plague), item: one.item },
      },
    });
    setPicks([]);
    setItem(CurePlagueItem.UNSPECIFIED);
  };
  const tap = (p: XY) => {
    const k = at(p);
    if (pickedSet.has(k)) setPicks(picked.slice(0, picked.findIndex((q) => at(q) === k)));
    else if (next.has(k)) setPicks([...picked, p]);
  };
  const outline = (t: { human: XY; cure: XY; plague: XY }) => [t.human, t.cure, t.plague];
  const score = v.score;
  const forWhom = v.toMove !== undefined && v.tileOf !== undefined && v.tileOf !== v.toMove;
  const turnText =
    v.toMove === undefined
      ? "The match is over."
      : `${names.subj(v.toMove)} ${v.toMove === me ? "place" : "places"} ${forWhom ? `${names.poss(v.tileOf!)} tile` : "a tile"}${
          v.turn === CurePlagueTurn.RUSHED ? " (rushed: 30 seconds, no reserve)" : ""
        }.`;
  const cellsList: XY[] = [];
  for (let y = y1; y >= y0; y--) for (let x = x0; x <= x1; x++) cellsList.push([x, y]);
  const stepWord = steps[step] ?? "plague";
  return (
    <div class="board cureplague">
      <section class="table" aria-label="Game">
        <p class="status">
          Game {v.game} of 2 · {plural(tiles.length, "tile")} of 21 · {turnText}
        </p>
        <p>
          {v.toMove === undefined ? "The last board: " : "If the game ended now: "}
          <strong>{plural(score?.survivors ?? 0, "human")} alive</strong> (the Cure's score),{" "}
          {plural(score?.neutralized ?? 0, "plague cell")} neutralized.
        </p>
        {v.games.length > 0 && (
          <ul class="results">
            {v.games.map((g, i) => (
              <li key={i}>
                Game {i + 1}: {names.subj(g.cure)} as Cure kept {plural(g.survivors, "human")} alive,{" "}
                {plural(g.neutralized, "plague")} neutralized.
              </li>
            ))}
          </ul>
        )}
      </section>
      <LastResult text={last} />
      {canMove && (
        <section class="panel cpturn" aria-label="Your tile">
          {items.length > 1 && (
            <fieldset class="items">
              <legend>Item</legend>
              {items.map((i) => (
                <label key={i}>
                  <input
                    type="radio"
                    name="item"
                    checked={it === i}
                    onChange={() => {
                      setItem(i);
                      setPicks([]);
                    }}
                  />{" "}
                  {i === CurePlagueItem.UNSPECIFIED ? "No item" : `${itemName(i)}: ${ITEM_HELP[i] ?? ""}`}
                </label>
              ))}
            </fieldset>
          )}
          <p>
            {one
              ? `The tile: ${tripleText(one.human, one.cure, one.plague)}.`
              : `Pick the ${stepWord}'s cell on the grid (the outlined cells).`}
          </p>
          <div class="actions">
            <button type="button" class="primary" disabled={!one} onClick={place}>
              Place this tile
            </button>
            {picked.length > 0 && (
              <button type="button" onClick={() => setPicks([])}>
                Start again
              </button>
            )}
          </div>
        </section>
      )}
      <div class="gridwrap">
        <svg
          class="cpgrid"
          viewBox={`0 0 ${width} ${height}`}
          width={Math.round(width * 1.25)}
          height={Math.round(height * 1.25)}
          role="group"
          aria-label={`Grid of game ${v.game}: ${plural(tiles.length, "tile")}`}
        >
          {cellsList.map((p) => {
            const k = at(p);
            const kind = kindAt.get(k) ?? preview?.get(k);
            const can = next.has(k) || pickedSet.has(k);
            const x = px(p[0]);
            const y = py(p[1]);
            const isPreview = !kindAt.has(k) && preview?.has(k);
            const cls = `cpcell${kind ? ` k${kind}` : ""}${can ? " pickable" : ""}${pickedSet.has(k) ? " picked" : ""}${
              isPreview ? " preview" : ""
            }`;
            const mark = mk.get(k);
            const word =
              kind === "H"
                ? mark === "h"
                  ? "a dead human"
                  : "a living human"
                : kind === "C"
                  ? "a cure"
                  : kind === "P"
                    ? mark === "p"
                      ? "a neutralized plague"
                      : "a plague"
                    : "empty";
            const label = `${showXY(p)}: ${isPreview ? `your tile's ${word.replace(/^an? (living )?/, "")}` : word}${
              can ? (pickedSet.has(k) ? ", picked (press to undo)" : `, place the ${stepWord} here`) : ""
            }`;
            return (
              <g key={k} class={cls}>
                <rect
                  x={x + 1}
                  y={y + 1}
                  width={CELL - 2}
                  height={CELL - 2}
                  rx={4}
                  aria-label={label}
                  {...(can
                    ? {
                        tabIndex: 0,
                        role: "button",
                        onClick: () => tap(p),
                        onKeyDown: (e: KeyboardEvent) => {
                          if (e.key === "Enter" || e.key === " ") {
                            e.preventDefault();
                            tap(p);
                          }
                        },
                      }
                    : kind
                      ? { role: "img" }
                      : { "aria-hidden": "true" })}
                />
                {kind && <Glyph kind={kind} x={x} y={y} mark={isPreview ? undefined : mark} />}
              </g>
            );
          })}
          {tiles.map((t, i) => {
            const cs = outline(t);
            const xs = cs.map((c) => c[0]);
            const ys = cs.map((c) => c[1]);
            const straight = new Set(xs).size === 1 || new Set(ys).size === 1;
            if (!straight) {
              return (
                <g key={`t${i}`} class={`tileline${t === lastTile ? " last" : ""}`} aria-hidden="true">
                  {cs.map((c, j) => (
                    <rect key={j} x={px(c[0]) + 1} y={py(c[1]) + 1} width={CELL - 2} height={CELL - 2} rx={4} />
                  ))}
                </g>
              );
            }
            const minX = Math.min(...xs);
            const maxY = Math.max(...ys);
            return (
              <rect
                key={`t${i}`}
                class={`tileline${t === lastTile ? " last" : ""}`}
                x={px(minX) + 1}
                y={py(maxY) + 1}
                width={(Math.max(...xs) - minX + 1) * CELL - 2}
                height={(maxY - Math.min(...ys) + 1) * CELL - 2}
                rx={5}
                aria-hidden="true"
              />
            );
          })}
        </svg>
      </div>
      <p class="legend muted">
        <span class="swatch kH" aria-hidden="true" /> human · <span class="swatch kC" aria-hidden="true" /> cure ·{" "}
        <span class="swatch kP" aria-hidden="true" /> plague; a crossed human would die, a faded plague is neutralized
        (two or more cures beside it). The last tile placed is outlined in bold.
      </p>
    </div>
  );
}

export const curePlague: GameUI = {
  title: "Cure & Plague",
  Board,
  narrate: (entries, names) => story(entries, names).lines,
  finalScore(resp, names) {
    const v = viewOf(resp);
    if (!v) return "";
    return v.games.length
      ? v.games
          .map((g, i) => `Game ${i + 1}: ${names.obj(g.cure)} as Cure kept ${plural(g.survivors, "human")} alive (${g.neutralized} neutralized)`)
          .join("; ")
      : "No game was finished";
  },
  seat(resp, seat) {
    const v = viewOf(resp);
    if (!v) return null;
    const role = seat === v.cure ? "Cure" : "Plague";
    const items = [...(seat === 0 ? v.items0 : v.items1)];
    const extra = `items: ${items.length ? items.map(itemName).join(", ") : "none"}${v.advantage === seat ? " · holds Advantage" : ""}`;
    return { value: role, aria: `${role} in game ${v.game}, ${extra}`, extra };
  },
  reserve(resp) {
    const v = viewOf(resp);
    if (!v) return undefined;
    return {
      left: [num(v.reserveMs0), num(v.reserveMs1)],
      windowMs: num(v.window?.fixedMs ?? 60_000n),
      usable: v.window?.reserve ?? false,
    };
  },
};
