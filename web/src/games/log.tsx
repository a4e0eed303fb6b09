// The event log: each event the viewer received, in plain words (each game's narrator
// writes its own; the match-level ones are written here), and the other seat's player
// leaving and coming back (the watch's presence), newest first, with the newest also read
// out by screen readers.
import { useState } from "preact/hooks";
import type { Event } from "../gen/colosseum/v1/games_pb.js";
import type { Entry, Names } from "./common.js";

/** One line of the log. */
export interface Line {
  key: string;
  text: string;
  /** Only this viewer got the event (its own sealed move). */
  private: boolean;
  /** Lines that mark a round's result stand out. */
  strong?: boolean;
}

/** Why a match ended, in words: "by points", "Red resigned", ... */
export function reasonText(reason: string, winner: number | undefined, names: Names): string {
  const loser = winner === undefined ? undefined : 1 - winner;
  switch (reason) {
    case "completed":
      return winner === undefined ? "the match was played out level" : "the match was played to its end";
    case "connected":
      return winner === undefined ? "a side was joined" : `${names.obj(winner)} joined both sides`;
    case "resigned":
      return loser === undefined ? "a player resigned" : `${names.obj(loser)} resigned`;
    case "missed_deadline":
      return loser === undefined ? "both players missed a deadline" : `${names.obj(loser)} missed a move deadline`;
    case "rule_violation":
      return loser === undefined ? "a rule was broken" : `${names.obj(loser)} broke a rule`;
    case "abandoned":
      return "both players kept missing their deadlines, so the match was abandoned";
    default:
      return reason || "it ended";
  }
}

/** Who won, from the viewer's side: "You won", "You lost", "Draw", "Red won". */
export function resultText(winner: number | undefined, names: Names, reason: string): string {
  if (winner === undefined) return reason === "abandoned" ? "No result" : "Draw";
  if (names.mySeat === undefined) return `${names.colour(winner)} won`;
  return winner === names.mySeat ? "You won" : "You lost";
}

/** A line for a match-level event; null for a game's own (its board's narrator writes it:
 * the games' cases are not listed here, so a new game touches only its own board). */
export function commonLine(ev: Event, names: Names): string | null {
  const k = ev.kind;
  if (k.case === "matchStarted") return "The match started: both seats are taken, the seed is committed.";
  if (k.case === "resigned") return `${names.subj(k.value.seat)} resigned.`;
  if (k.case === "matchEnded") {
    const e = k.value;
    const r = resultText(e.winner, names, e.reason);
    return `The match is over: ${r.charAt(0).toLowerCase()}${r.slice(1)} (${reasonText(e.reason, e.winner, names)}). The seed is now public.`;
  }
  return null;
}

/** A key for an entry's line. */
export function keyOf(e: Entry): string {
  return `${e.version}:${e.index}`;
}

/** The line of a match-level event (started, ended...), the same in every game's log; null
 * for a game's own event, which its narrator writes. */
export function commonEntry(e: Entry, names: Names): Line | null {
  const text = commonLine(e.event, names);
  if (text === null) return null;
  return { key: keyOf(e), text, private: e.private, strong: e.event.kind.case === "matchEnded" };
}

/** A change in another seat's presence (WatchMatch's include_presence), where the stream
 * had got to when it came: its `version` and `index` are those of the last message before
 * it, so its line stands after that message's. */
export interface PresenceNote {
  seat: number;
  /** The seat's player left (the last watch gone), came back, or was not connected when the
   * page caught up. */
  kind: "left" | "back" | "absent";
  version: bigint;
  index: number;
  /** The note's number, from 0, for its line's key. */
  n: number;
}

/** Whether a seat is a built-in bot's, whose presence is never news. */
export function botSeat(seat: number, names: Names): boolean {
  if ((names.holders[seat] ?? "").startsWith("bot:")) return true;
  return names.mySeat !== undefined && seat !== names.mySeat && names.bot !== null;
}

/** A presence note in words: "Your opponent left the match; their clock keeps running." */
export function presenceText(note: PresenceNote, names: Names): string {
  const who = names.subj(note.seat);
  switch (note.kind) {
    case "left":
      return `${who} left the match; their clock keeps running.`;
    case "back":
      return `${who} is back.`;
    case "absent":
      return `${who} is not connected right now.`;
  }
}

/** The game's lines (each keyed `version:index`, as `keyOf` makes them) with the presence
 * notes' lines among them, each after the lines of the messages received before it. No
 * line for the viewer's own seat, nor for a built-in bot's. */
export function withPresence(lines: Line[], notes: PresenceNote[], names: Names): Line[] {
  const shown = notes.filter((n) => n.seat !== names.mySeat && !botSeat(n.seat, names));
  if (shown.length === 0) return lines;
  const out: Line[] = [];
  let next = 0;
  const note = (n: PresenceNote): Line => ({ key: `presence:${n.n}`, text: presenceText(n, names), private: false });
  for (const l of lines) {
    const m = /^(\d+):(\d+)$/.exec(l.key);
    if (m) {
      const [version, index] = [BigInt(m[1]), Number(m[2])];
      // The notes that came before this line's message.
      for (; next < shown.length; next++) {
        const n = shown[next];
        if (n.version > version || (n.version === version && n.index >= index)) break;
        out.push(note(n));
      }
    }
    out.push(l);
  }
  for (; next < shown.length; next++) out.push(note(shown[next]));
  return out;
}

/** Lines drawn at first: a long match's log stays quick to draw. */
const SHOWN = 120;

export function EventLog({ lines }: { lines: Line[] }) {
  const [all, setAll] = useState(false);
  const newest = lines.length ? lines[lines.length - 1] : undefined;
  const shown = all ? lines : lines.slice(-SHOWN);
  return (
    <section class="panel eventlog" aria-labelledby="log-title">
      <h2 id="log-title">What happened</h2>
      <p class="sr-only" aria-live="polite">
        {newest?.text ?? ""}
      </p>
      {lines.length === 0 ? (
        <p class="muted">Nothing yet.</p>
      ) : (
        <ol class="log" data-lines={lines.length}>
          {[...shown].reverse().map((l) => (
            <li key={l.key} class={`${l.private ? "private" : ""}${l.strong ? " strong" : ""}`}>
              {l.text}
              {l.private && <span class="muted"> (only you see this)</span>}
            </li>
          ))}
        </ol>
      )}
      {lines.length > shown.length && (
        <button type="button" class="small" onClick={() => setAll(true)}>
          Show all {lines.length} lines
        </button>
      )}
    </section>
  );
}
