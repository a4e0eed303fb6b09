// What every game's board shares: the props a board gets from the match page, who is who
// in plain words, number helpers for the generated messages (64-bit fields are bigints),
// a card face, and keyboard shortcuts. A board draws only what its viewer's view and
// events hold: the page never asks for anything else.
import type { ComponentChildren, FunctionComponent } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Event, Move, MoveSchema } from "../gen/colosseum/v1/games_pb.js";
import type { Cards, SeatPair } from "../gen/colosseum/v1/common_pb.js";
import type { Line } from "./log.js";
import type { Reserve } from "./clock.js";

/** One message of the match's stream that carried an event, as the page keeps it. */
export interface Entry {
  version: bigint;
  index: number;
  /** Only the receiving seat got it. */
  private: boolean;
  event: Event;
}

/** A number from a generated field (64-bit ones are bigints). */
export function num(x: bigint | number | undefined | null): number {
  return x === undefined || x === null ? 0 : Number(x);
}

/** A seat pair as [seat 0, seat 1]. */
export function pair(p: SeatPair | undefined): [number, number] {
  return [num(p?.seat0), num(p?.seat1)];
}

/** The values of a card set. */
export function cards(c: Cards | undefined): number[] {
  return c ? [...c.values] : [];
}

/** A score kept in half points (GOPS' split ties), in points: 9 -> "4.5". */
export function halves(h: number): string {
  return h % 2 === 0 ? String(h / 2) : `${Math.floor(h / 2)}.5`;
}

/** Who is who, in the page's words: "you", "your opponent", "the bot", or a seat colour. */
export interface Names {
  /** The viewer's seat; absent for a spectator. */
  mySeat: number | undefined;
  /** Blue or Red: the seat's colour on every board. */
  colour: (seat: number) => string;
  /** At the start of a sentence: "You", "The bot", "Your opponent", "Blue". */
  subj: (seat: number) => string;
  /** Inside a sentence: "you", "the bot", "your opponent", "Blue". */
  obj: (seat: number) => string;
  /** "your", "the bot's", "your opponent's", "Blue's". */
  poss: (seat: number) => string;
  /** A label for a seat's panel: "You (Blue)", "Bot: strong (Red)". */
  label: (seat: number) => string;
  /** The holder of each seat as the view names it ("", a player id, "reserved:ID"). */
  holders: string[];
  /** The built-in bot in the other seat, by name; null when a person holds it. */
  bot: string | null;
}

const COLOURS = ["Blue", "Red"];

/** Names for a match seen from `mySeat` with these seat holders; `opponent` as the
 * viewer's match list names the other seat (a display name, or a built-in bot's name). */
export function makeNames(
  mySeat: number | undefined,
  holders: string[],
  opponent: { name: string; bot: boolean } | null = null,
  players: string[] | null = null,
): Names {
  const bot = (s: number) => {
    const h = holders[s] ?? "";
    if (h.startsWith("bot:")) return h.slice(4);
    return mySeat !== undefined && s !== mySeat && opponent?.bot ? opponent.name : null;
  };
  const obj = (s: number): string => {
    if (mySeat === s) return "you";
    if (mySeat !== undefined) return bot(s) !== null ? "the bot" : "your opponent";
    return COLOURS[s] ?? `seat ${s}`;
  };
  const cap = (t: string) => (t.startsWith("you") || t.startsWith("the") ? t[0].toUpperCase() + t.slice(1) : t);
  return {
    mySeat,
    holders,
    bot: mySeat === undefined ? null : bot(1 - mySeat),
    colour: (s) => COLOURS[s] ?? `Seat ${s}`,
    subj: (s) => cap(obj(s)),
    obj,
    poss: (s) => (mySeat === s ? "your" : `${obj(s)}'s`),
    label: (s) => {
      const b = bot(s);
      const h = holders[s] ?? "";
      const who =
        mySeat === s
          ? "You"
          : b !== null
            ? `Bot “${b}”`
            : h === ""
              ? "Open seat"
              : h.startsWith("reserved:")
                ? "Invited player"
                : mySeat !== undefined
                  ? opponent?.name || "Opponent"
                  : players?.[s] || "Player";
      return `${who} (${COLOURS[s] ?? s})`;
    },
  };
}

/** What the match page gives a game's board. */
export interface BoardProps {
  /** The latest view (from the stream or GetView): the game's view, seat, seats to move,
   * legal moves, outcome. */
  resp: GetViewResponse;
  names: Names;
  /** The events received so far, in order. */
  events: Entry[];
  /** The viewer owes a move now and none is on its way. */
  canMove: boolean;
  /** Sends a move (the page keeps one idempotency key per intended move, retries it). */
  submit: (move: MoveInit) => void;
}

/** A move as the page builds it. */
export type MoveInit = MessageInitShape<typeof MoveSchema>;

/** Each game's move message, by the Move oneof's case. */
type Moves = { [C in NonNullable<Move["game"]["case"]>]: Extract<Move["game"], { case: C }>["value"] };

/** The legal moves of this game, unwrapped from the Move oneof. */
export function legal<K extends keyof Moves>(resp: GetViewResponse, game: K): Moves[K][] {
  const out: Moves[K][] = [];
  for (const m of resp.legalMoves) {
    if (m.game.case === game) out.push(m.game.value as Moves[K]);
  }
  return out;
}

/** Whether focus is in a text field (shortcuts stay out of its way). */
function typing(e: KeyboardEvent): boolean {
  const t = e.target;
  return t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
}

/**
 * Keyboard shortcuts while `enabled`: `on` gets each key press (no Ctrl, Alt or Meta) and
 * returns true when it used it.
 */
export function useKeys(enabled: boolean, on: (e: KeyboardEvent) => boolean): void {
  const ref = useRef(on);
  ref.current = on;
  useEffect(() => {
    if (!enabled) return undefined;
    const h = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.altKey || e.metaKey || typing(e)) return;
      if (ref.current(e)) e.preventDefault();
    };
    addEventListener("keydown", h);
    return () => removeEventListener("keydown", h);
  }, [enabled]);
}

/** Enter plays what the shortcuts chose, when `ready`: unless a button has the focus, whose
 * own click Enter already is (so a move is never sent twice). Whether the key was taken. */
export function enterPlays(e: KeyboardEvent, ready: boolean, play: () => void): boolean {
  if (e.key !== "Enter" || !ready || e.target instanceof HTMLButtonElement) return false;
  play();
  return true;
}

/** After a shortcut chose something: focus the board's main button, so Enter presses it. */
export function focusAction(): void {
  setTimeout(() => document.querySelector<HTMLButtonElement>(".board .actions button.primary:not(:disabled)")?.focus(), 0);
}

/** The digit a key press names (Digit1..Digit9, Digit0 as 10 when `zeroIsTen`), or null. */
export function digitOf(e: KeyboardEvent, zeroIsTen = false): number | null {
  const m = /^(?:Digit|Numpad)([0-9])$/.exec(e.code);
  if (!m) return null;
  const d = Number(m[1]);
  return d === 0 ? (zeroIsTen ? 10 : null) : d;
}

/** A card's face: a button when it can be chosen, a plain face otherwise. */
export function CardFace(props: {
  /** The big text in the middle (a rank, a name). */
  rank: ComponentChildren;
  /** A line below it. */
  sub?: ComponentChildren;
  /** Extra classes: `prize`, `black`, `white`, `seat0`, `seat1`, `spent`, `small`. */
  kind?: string;
  /** The accessible name. */
  label: string;
  /** Chosen now (a toggle button's pressed state). */
  selected?: boolean;
  /** Given: the card is a button. */
  onClick?: () => void;
  disabled?: boolean;
  /** A keyboard hint shown in the corner. */
  hint?: string;
}) {
  const cls = `cardface ${props.kind ?? ""}${props.selected ? " selected" : ""}`;
  const inner = (
    <>
      <span class="rank">{props.rank}</span>
      {props.sub !== undefined && <span class="sub">{props.sub}</span>}
      {props.hint !== undefined && (
        <kbd class="hint" aria-hidden="true">
          {props.hint}
        </kbd>
      )}
    </>
  );
  if (props.onClick) {
    return (
      <button
        type="button"
        class={cls}
        aria-label={props.label}
        aria-pressed={props.selected ?? false}
        disabled={props.disabled}
        onClick={props.onClick}
      >
        {inner}
      </button>
    );
  }
  return (
    <span class={cls} role="img" aria-label={props.label}>
      {inner}
    </span>
  );
}

/** A labelled row of values, one per seat, the viewer's first when it has a seat. */
export function seatOrder(names: Names): [number, number] {
  return names.mySeat === 1 ? [1, 0] : [0, 1];
}

/** Plural helper: "1 point", "3 points". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A seat's standing in the seat bar. */
export interface SeatInfo {
  /** The big figure: points, AP, a role. */
  value: ComponentChildren;
  /** Its accessible wording ("35 points"). */
  aria: string;
  /** A line more (bouts won, patterns, items). */
  extra?: ComponentChildren;
}

/** Filled and empty pips: bouts won of those needed. */
export function Pips({ won, of }: { won: number; of: number }) {
  return (
    <span class="pips" aria-hidden="true">
      {Array.from({ length: of }, (_, i) => (
        <span key={i} class={`pip${i < won ? " won" : ""}`} />
      ))}
    </span>
  );
}

/** A game as the match page draws it. */
export interface GameUI {
  /** A title for people. */
  title: string;
  /** The board: the view drawn, the legal moves as things to click. */
  Board: FunctionComponent<BoardProps>;
  /** The log's lines for these events. */
  narrate: (entries: Entry[], names: Names) => Line[];
  /** The final score in words, for the end screen ("You 46, the bot 45"). */
  finalScore: (resp: GetViewResponse, names: Names) => string;
  /** A seat's standing for the seat bar: its score (or role), and a line more. */
  seat: (resp: GetViewResponse, seat: number, names: Names) => SeatInfo | null;
  /** Seats that have sealed their move this round (simultaneous games). */
  moved?: (resp: GetViewResponse) => number[];
  /** The game's reserve time, where it has one. */
  reserve?: (resp: GetViewResponse) => Reserve | undefined;
}

/** The last round's result, in a panel of its own. */
export function LastResult({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p class="lastresult" aria-label="Last round">
      <strong>Last round: </strong>
      {text}
    </p>
  );
}
