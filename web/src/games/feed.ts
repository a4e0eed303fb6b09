// One match as the page follows it: the seat (joining an open one, as a friend's
// challenge link means), the events and the latest view from WatchMatch (include_views),
// resumed after a dropped stream from the last message received (after_version,
// after_index, after_tag) and restated after a `resync`; moves and resignations sent with
// the retries colosseum.proto asks for. The watch asks for the seats' presence too
// (include_presence): who comes and goes is kept as notes for the log, and who is away
// for the seat bar. It holds only what the API gave this viewer.
import { Code, ConnectError } from "@connectrpc/connect";
import { matches, newKey, plainError, session, setSession, ensureSession, type Session } from "../api.js";
import type { GetViewResponse, WatchMatchResponse } from "../gen/colosseum/v1/colosseum_pb.js";
import type { Entry, MoveInit } from "./common.js";
import type { PresenceNote } from "./log.js";

/** Codes after which the same request is sent again (colosseum.proto, "Retries"). */
function retryable(e: unknown): boolean {
  if (!(e instanceof ConnectError)) return true; // a network failure: the request may not have left
  return (
    e.code === Code.Unavailable ||
    e.code === Code.Aborted ||
    e.code === Code.DeadlineExceeded ||
    e.code === Code.Unknown ||
    e.code === Code.Internal
  );
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((ok) => {
    const t = setTimeout(ok, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      ok();
    });
  });

/** Calls `f` until it answers or fails with a final code (at most `tries` times). */
async function withRetries<T>(f: () => Promise<T>, signal: AbortSignal, tries = 8): Promise<T> {
  let wait = 200;
  for (let i = 1; ; i++) {
    try {
      return await f();
    } catch (e) {
      if (signal.aborted || i >= tries || !retryable(e)) throw e;
      await sleep(wait, signal);
      wait = Math.min(wait * 2, 3000);
    }
  }
}

/** Where a resumed watch picks up: the last message received. */
interface Cursor {
  version: bigint;
  index?: number;
  tag?: bigint;
}

/** Who the other seat is: a display name, or a built-in bot's name. */
export interface Opponent {
  name: string;
  bot: boolean;
}

export type Phase = "connecting" | "joining" | "live" | "reconnecting" | "ended" | "failed";

export class MatchFeed {
  phase: Phase = "connecting";
  /** A problem to show (a refused move, a lost connection); cleared by the next success. */
  notice: string | null = null;
  /** A failure that stops the page (no such match, a session that ended). */
  fatal: string | null = null;
  /** The fatal failure was an ended account session: the page offers to sign in. */
  signInAgain = false;
  /** The latest view and when it arrived (deadline_in_ms counts from then). */
  resp: GetViewResponse | null = null;
  receivedAt = 0;
  events: Entry[] = [];
  /** A move on its way, or waiting for the view of the version it made. */
  sending = false;
  private awaitVersion: bigint | null = null;
  /** The seat was taken by this page just now (a challenge accepted). */
  joined = false;
  /** The opponent as the viewer's own match list names it (seated viewers only). */
  opponent: Opponent | null = null;
  /** Both players' display names, for a spectator (a bot's seat shows the bot's name). */
  players: string[] | null = null;
  /** What the seats' presence told, for the log: another seat's player left, came back,
   * or was not connected when the page caught up. */
  presenceNotes: PresenceNote[] = [];
  /** Per seat: whether its player was connected at the last presence message; undefined
   * while not known (no message yet, or the seat not yet held by a player). */
  private present: (boolean | undefined)[] = [undefined, undefined];
  private holders = "";
  private seen = new Set<string>();
  private cursor: Cursor | null = null;
  private abort = new AbortController();
  private listeners = new Set<() => void>();

  constructor(readonly matchId: string) {}

  /** Calls `l` on every change; returns the unsubscribe. */
  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  stop(): void {
    this.abort.abort();
  }

  /** The viewer owes a move now and none is on its way. */
  get canMove(): boolean {
    const r = this.resp;
    if (!r || r.outcome || r.legalMoves.length === 0 || this.sending) return false;
    return this.awaitVersion === null || r.version >= this.awaitVersion;
  }

  get over(): boolean {
    return this.resp?.outcome !== undefined;
  }

  /** Finds the seat, joins an open one, then watches until the match ends. */
  async run(): Promise<void> {
    const signal = this.abort.signal;
    let used: Session | null = null;
    try {
      const me = await ensureSession();
      used = me;
      let v = await withRetries(() => matches.getView({ matchId: this.matchId }, { signal }), signal);
      const open = v.playerIds.length < 2 || v.playerIds.includes("") || v.playerIds.includes(`reserved:${me.playerId}`);
      if (v.seat === undefined && !v.outcome && open) {
        this.phase = "joining";
        this.changed();
        const key = newKey();
        try {
          await withRetries(() => matches.joinMatch({ matchId: this.matchId, idempotencyKey: key }, { signal }), signal);
          this.joined = true;
        } catch (e) {
          // Taken by someone else first, or over: watch as a spectator.
          if (!(e instanceof ConnectError && e.code === Code.FailedPrecondition)) throw e;
          this.notice = "The open seat was taken before you: you are watching.";
        }
        v = await withRetries(() => matches.getView({ matchId: this.matchId }, { signal }), signal);
      }
      this.setView(v, Date.now());
      this.changed();
      void this.awaitOpponent(signal);
      await this.watch(signal);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ConnectError && e.code === Code.Unauthenticated) {
        const s = session();
        // A session made since this feed's: the page restarts the feed with it.
        if (s && s.token !== used?.token) return;
        if (s && !s.account) {
          // A guest's session that ended: start a new guest (the page restarts with it).
          setSession(null);
          await ensureSession().catch(() => undefined);
          return;
        }
        this.signInAgain = true;
      }
      this.phase = "failed";
      this.fatal =
        e instanceof ConnectError && e.code === Code.NotFound ? "There is no match with this id." : plainError(e);
      this.changed();
    }
  }

  /** Whether the viewer holds a seat and the other is still open or only reserved. */
  get waiting(): boolean {
    const r = this.resp;
    if (!r || r.outcome || r.seat === undefined) return false;
    if (r.deadlineAtMs !== undefined || r.deadlineInMs !== undefined) return false;
    return r.playerIds.length < 2 || r.playerIds.some((h) => h === "" || h.startsWith("reserved:"));
  }

  /** A seat taken adds no version to the match (the stream says nothing until the next
   * move), so while the other seat is open GetView is asked every two seconds: the clock
   * starts, and the page shows it, as soon as the opponent sits down. */
  private async awaitOpponent(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && this.waiting) {
      await sleep(2000, signal);
      if (signal.aborted || !this.waiting) return;
      try {
        this.setView(await matches.getView({ matchId: this.matchId }, { signal }), Date.now());
        this.changed();
      } catch {
        // The stream and the next poll carry on.
      }
    }
  }

  /** WatchMatch with views, resumed from the cursor until the match's last message. */
  private async watch(signal: AbortSignal): Promise<void> {
    let wait = 250;
    while (!signal.aborted) {
      const c = this.cursor;
      try {
        const stream = matches.watchMatch(
          {
            matchId: this.matchId,
            includeViews: true,
            afterVersion: c?.version ?? 0n,
            afterIndex: c?.index,
            afterTag: c?.tag,
            includePresence: true,
          },
          { signal },
        );
        for await (const m of stream) {
          if (this.phase !== "live") {
            this.phase = "live";
            if (this.notice?.startsWith("Connection lost")) this.notice = null;
          }
          wait = 250;
          this.take(m);
          this.changed();
        }
        // The stream ends after the match's last message.
        if (this.over) {
          this.phase = "ended";
          this.changed();
          return;
        }
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof ConnectError && !retryable(e) && e.code !== Code.ResourceExhausted) throw e;
      }
      this.phase = "reconnecting";
      this.changed();
      await sleep(wait, signal);
      wait = Math.min(wait * 2, 5000);
    }
  }

  /** One message of the stream. */
  private take(m: WatchMatchResponse): void {
    // Seat presence (sent only to a watch that asks, include_presence) is no position in
    // the match: the cursor stays where the last event or view put it.
    if (m.presence) {
      this.takePresence([...m.presence.connected], m.version, m.index);
      return;
    }
    if (m.resync) {
      // The history after `after_version` is void: drop it, the stream restates it.
      const after = m.resync.afterVersion;
      this.events = this.events.filter((e) => e.version <= after);
      this.seen = new Set(this.events.map((e) => `${e.version}:${e.index}`));
      if (this.resp && this.resp.version > after) this.resp = null;
      this.cursor = after === 0n ? null : { version: after };
      return;
    }
    this.cursor = { version: m.version, index: m.index, tag: m.tag };
    if (m.event) {
      const k = `${m.version}:${m.index}`;
      if (!this.seen.has(k)) {
        this.seen.add(k);
        this.events = [...this.events, { version: m.version, index: m.index, private: m.private, event: m.event }];
      }
    }
    if (m.view) this.setView(m.view, Date.now());
  }

  /** Whether a seat's player is known to be away now (a seat the viewer does not hold,
   * held by a player, while the match goes on). */
  away(seat: number): boolean {
    const r = this.resp;
    return !!r && !r.outcome && seat !== r.seat && this.present[seat] === false;
  }

  /** A presence message: a note for each other seat whose player left or came back; on
   * the first one, for a seat held by a player who is not connected. A seat still open or
   * reserved is never connected (no news), nor is a built-in bot's presence news. */
  private takePresence(connected: boolean[], version: bigint, index: number): void {
    const mine = this.resp?.seat;
    const holders = this.holders.split("|");
    for (const seat of [0, 1]) {
      if (seat === mine) continue;
      const h = holders[seat] ?? "";
      if (h.startsWith("bot:")) continue;
      const now = connected[seat] ?? false;
      const was = this.present[seat];
      if (now === was) continue;
      if (!now && was === undefined && (h === "" || h.startsWith("reserved:"))) continue;
      this.present[seat] = now;
      // A player first seen connected is no news (there from the start, or the seat just taken).
      if (now && was === undefined) continue;
      const kind = now ? "back" : was === undefined ? "absent" : "left";
      this.presenceNotes = [...this.presenceNotes, { seat, kind, version, index, n: this.presenceNotes.length }];
    }
  }

  /** Keeps the newest view (one of the same version keeps a deadline the other lacks). */
  private setView(v: GetViewResponse, at: number): void {
    const cur = this.resp;
    if (cur && v.version < cur.version) return;
    if (cur && v.version === cur.version && v.deadlineAtMs === undefined && cur.deadlineAtMs !== undefined) {
      v = { ...v, deadlineAtMs: cur.deadlineAtMs, deadlineInMs: cur.deadlineInMs };
      at = this.receivedAt;
    }
    this.resp = v;
    this.receivedAt = at;
    const holders = v.playerIds.join("|");
    if (holders !== this.holders) {
      this.holders = holders;
      if (v.seat !== undefined) void this.findOpponent();
      else if (!v.outcome && v.playerIds.length === 2 && !v.playerIds.includes("")) void this.findPlayers(v.game);
    }
  }

  /** The players' names for a spectator, from ListLiveMatches (newest first). */
  private async findPlayers(game: string): Promise<void> {
    const signal = this.abort.signal;
    let pageToken = "";
    try {
      for (let i = 0; i < 5; i++) {
        const r = await matches.listLiveMatches({ game, pageSize: 100, pageToken }, { signal });
        const m = r.matches.find((x) => x.matchId === this.matchId);
        if (m) {
          this.players = [...m.playerNames];
          this.changed();
          return;
        }
        if (!r.nextPageToken) return;
        pageToken = r.nextPageToken;
      }
    } catch {
      // Names are a nicety: the page works with the seats' colours.
    }
  }

  /** The opponent's name from ListMyMatches (the viewer's own matches, newest first). */
  private async findOpponent(): Promise<void> {
    const signal = this.abort.signal;
    let pageToken = "";
    try {
      for (let i = 0; i < 10; i++) {
        const r = await matches.listMyMatches({ pageSize: 100, pageToken }, { signal });
        const m = r.matches.find((x) => x.matchId === this.matchId);
        if (m) {
          this.opponent = m.opponentName ? { name: m.opponentName, bot: m.opponentIsBot } : null;
          this.changed();
          return;
        }
        if (!r.nextPageToken) return;
        pageToken = r.nextPageToken;
      }
    } catch {
      // Names are a nicety: the page works with "your opponent".
    }
  }

  /** Sends a move: one idempotency key for it, retried on UNAVAILABLE/ABORTED with that key. */
  async submit(move: MoveInit): Promise<void> {
    if (this.sending) return;
    const signal = this.abort.signal;
    const key = newKey();
    this.sending = true;
    this.notice = null;
    this.changed();
    try {
      const r = await withRetries(
        () => matches.submitMove({ matchId: this.matchId, move, idempotencyKey: key }, { signal }),
        signal,
      );
      const acc = r.outcome.value;
      if (acc) this.awaitVersion = acc.version;
    } catch (e) {
      if (!signal.aborted) this.notice = `Your move was not taken: ${plainError(e)}`;
    } finally {
      this.sending = false;
      this.changed();
    }
  }

  /** Resigns the viewer's seat. */
  async resign(): Promise<void> {
    const signal = this.abort.signal;
    this.sending = true;
    this.changed();
    try {
      await withRetries(() => matches.resign({ matchId: this.matchId }, { signal }), signal);
    } catch (e) {
      if (!signal.aborted) this.notice = `Resigning failed: ${plainError(e)}`;
    } finally {
      this.sending = false;
      this.changed();
    }
  }
}
