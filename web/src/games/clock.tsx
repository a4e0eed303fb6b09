// Both seats' clocks, counting down to the deadline the view gives: `deadline_in_ms`
// counted from the view's receipt (immune to a wrong clock on this machine), else
// `deadline_at_ms`. A game with reserve time (Cure & Plague) shows the reserve apart: the
// deadline covers the seat's minute and what is left of its reserve. Another seat whose
// player is away (the watch's presence) says so under its clock.
import { useEffect, useRef, useState } from "preact/hooks";
import type { GetViewResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import { type Names, type SeatInfo, num, seatOrder } from "./common.js";

/** When the view's deadline falls due, in this machine's milliseconds; null for none. */
export function dueAt(resp: GetViewResponse, receivedAt: number): number | null {
  if (resp.deadlineInMs !== undefined) return receivedAt + num(resp.deadlineInMs);
  if (resp.deadlineAtMs !== undefined) return num(resp.deadlineAtMs);
  return null;
}

/** "0:42", "12:05", "3:02:10", "2 d 4:00:00". */
export function formatMs(ms: number): string {
  const t = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(t / 86400);
  const h = Math.floor((t % 86400) / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  const ss = String(s).padStart(2, "0");
  if (d > 0) return `${d} d ${h}:${String(m).padStart(2, "0")}:${ss}`;
  if (h > 0) return `${h}:${String(m).padStart(2, "0")}:${ss}`;
  return `${m}:${ss}`;
}

/** "42 seconds", "12 minutes 5 seconds": a clock's accessible name. */
function spoken(ms: number): string {
  const t = Math.max(0, Math.ceil(ms / 1000));
  const parts: string[] = [];
  const d = Math.floor(t / 86400);
  const h = Math.floor((t % 86400) / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  if (d) parts.push(`${d} day${d === 1 ? "" : "s"}`);
  if (h) parts.push(`${h} hour${h === 1 ? "" : "s"}`);
  if (m) parts.push(`${m} minute${m === 1 ? "" : "s"}`);
  if (s || parts.length === 0) parts.push(`${s} second${s === 1 ? "" : "s"}`);
  return parts.join(" ");
}

/** The current time, ticking every quarter second while `on`. */
export function useNow(on: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!on) return undefined;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [on]);
  return now;
}

/** A game's reserve time: what the view says each seat has left, and the per-move window. */
export interface Reserve {
  /** Reserve left per seat as the view gives it (ms). */
  left: [number, number];
  /** The window of the seat to move before its reserve is drawn on (ms). */
  windowMs: number;
  /** Whether the seat to move may draw on its reserve in this window. */
  usable: boolean;
}

/** Both seats side by side: who, the game's score for each, and each seat's clock. */
export function SeatBar(props: {
  resp: GetViewResponse;
  receivedAt: number;
  names: Names;
  /** Each seat's score or role, from the game. */
  info: (seat: number) => SeatInfo | null;
  /** Whether each seat has already sealed its move this round (simultaneous games). */
  moved?: number[];
  reserve?: Reserve;
  /** Whether a seat's player is away now (another seat's, held by a person). */
  away?: (seat: number) => boolean;
}) {
  const { resp, receivedAt, names, reserve } = props;
  const due = resp.outcome ? null : dueAt(resp, receivedAt);
  const now = useNow(due !== null);
  // What this page knows of each seat's reserve: the view's figure, narrowed for the
  // seat to move by its deadline (the minute plus its reserve, counted from the view).
  const known = useRef<[number, number] | null>(null);
  if (reserve) {
    const k: [number, number] = known.current ?? [...reserve.left];
    for (const s of [0, 1]) k[s] = Math.min(k[s], reserve.left[s]);
    if (due !== null && reserve.usable && resp.toMove.length === 1) {
      const s = resp.toMove[0];
      // The view arrives a moment after the window opened: within two seconds of the
      // view's own figure, that figure is the reserve.
      const est = Math.max(0, Math.min(reserve.left[s], due - receivedAt - reserve.windowMs));
      k[s] = reserve.left[s] - est < 2000 ? reserve.left[s] : est;
    }
    known.current = k;
  }
  return (
    <div class="seatbar" role="group" aria-label="Players, scores and clocks">
      {seatOrder(names).map((seat) => {
        const owes = resp.toMove.includes(seat);
        const left = due === null ? null : due - now;
        const res = reserve && known.current ? known.current[seat] : null;
        const info = props.info(seat);
        let main: string | null;
        let aria: string;
        let cls = `seatpanel seat${seat}`;
        if (resp.outcome) {
          main = null;
          aria = "";
        } else if (owes && left !== null) {
          if (reserve && reserve.usable && res !== null && left <= res) {
            main = `reserve ${formatMs(left)}`;
            aria = `${spoken(left)} of reserve left`;
          } else {
            const moveLeft = reserve && reserve.usable && res !== null ? left - res : left;
            main = formatMs(moveLeft);
            aria = `${spoken(moveLeft)} left to move`;
          }
          cls += " running";
          if (left < 10_000) cls += " low";
        } else if (owes) {
          main = "to move";
          aria = "to move";
        } else if (props.moved?.includes(seat)) {
          main = "moved";
          aria = "has moved";
        } else {
          main = "waiting";
          aria = "waiting";
        }
        const resShown = res !== null && owes && left !== null && left < res ? Math.max(0, left) : res;
        return (
          <div class={cls} key={seat}>
            <span class="who">{names.label(seat)}</span>
            {info && (
              <span class="value" aria-label={`${names.label(seat)}: ${info.aria}`}>
                {info.value}
              </span>
            )}
            {main !== null && (
              <span class="time" role="timer" aria-label={`${names.label(seat)}: ${aria}`}>
                {main}
              </span>
            )}
            {resShown !== null && !resp.outcome && (
              <span class="reserve" aria-label={`${names.label(seat)}: reserve ${spoken(resShown)}`}>
                reserve {formatMs(resShown)}
              </span>
            )}
            {info?.extra !== undefined && <span class="extra">{info.extra}</span>}
            {!resp.outcome && seat !== names.mySeat && (
              <span class="presence" aria-live="polite">
                {props.away?.(seat) && (
                  <>
                    <span class="sr-only">{names.label(seat)}: </span>not connected
                  </>
                )}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}
