// The match page (#/match/<id>): takes the open seat when the visitor holds none (how a
// friend's challenge link works; a guest session is made at once if none is held),
// otherwise watches as a spectator; then draws the match as its viewer may see it: both
// clocks, the game's board with the legal moves to click, the last round's result, the
// event log (with the other player leaving and coming back, from the watch's presence), a
// resign button, and the end screen once it is over.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ensureSession, type Session } from "../api.js";
import { href } from "../route.js";
import { SeatBar } from "../games/clock.js";
import { makeNames } from "../games/common.js";
import { EndScreen } from "../games/end.js";
import { MatchFeed } from "../games/feed.js";
import { GAMES } from "../games/index.js";
import { EventLog, botSeat, withPresence } from "../games/log.js";

/** The feed of this match while the page shows it (restarted when the player changes).
 * A visitor without a session is made a guest first, and the feed starts once the player
 * is known: a feed started before would be restarted by the session it made, and the two
 * would race to take the seat. */
function useFeed(matchId: string, playerId: string | null): MatchFeed | null {
  const [feed, setFeed] = useState<MatchFeed | null>(null);
  const [, setTick] = useState(0);
  // The player the feed serves: the page's session, or the one held or made now ("" when
  // none could be made: the feed then tries itself and says why it could not).
  const [player, setPlayer] = useState<string | null>(playerId);
  useEffect(() => {
    if (playerId !== null) {
      setPlayer(playerId);
      return;
    }
    // The session ended or was left: the feed of the player before stops now.
    setPlayer(null);
    let live = true;
    ensureSession().then(
      (s) => live && setPlayer(s.playerId),
      () => live && setPlayer(""),
    );
    return () => {
      live = false;
    };
  }, [playerId]);
  useEffect(() => {
    if (player === null) {
      setFeed(null);
      return;
    }
    const bump = () => setTick((t) => t + 1);
    const f = new MatchFeed(matchId);
    const off = f.subscribe(bump);
    setFeed(f);
    void f.run();
    return () => {
      off();
      f.stop();
    };
  }, [matchId, player]);
  return feed;
}

function Invite({ matchId }: { matchId: string }) {
  const link = `${location.origin}/${href({ page: "match", matchId })}`;
  const [copied, setCopied] = useState(false);
  const copy = () => {
    navigator.clipboard
      .writeText(link)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  };
  return (
    <section class="panel invite" aria-labelledby="invite-title">
      <h2 id="invite-title">Waiting for your opponent</h2>
      <p>Send this link to a friend: opening it takes the other seat, and the clocks start.</p>
      <div class="copyrow">
        <input type="text" readOnly value={link} aria-label="Challenge link" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy link"}
        </button>
      </div>
    </section>
  );
}

function Resign({ onResign, busy }: { onResign: () => void; busy: boolean }) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="resign" onClick={() => setAsking(true)} disabled={busy}>
        Resign…
      </button>
    );
  }
  return (
    <div class="confirm" role="alertdialog" aria-labelledby="resign-q">
      <span id="resign-q">Resign this match? Your opponent wins.</span>
      <button
        ref={yes}
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          onResign();
        }}
      >
        Yes, resign
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep playing
      </button>
    </div>
  );
}

export function MatchPage({ matchId, me }: { matchId: string; me: Session | null }) {
  const feed = useFeed(matchId, me?.playerId ?? null);
  const resp = feed?.resp ?? null;
  const names = useMemo(
    () => makeNames(resp?.seat, resp ? [...resp.playerIds] : [], feed?.opponent ?? null, feed?.players ?? null),
    [resp?.seat, resp?.playerIds.join("|"), feed?.opponent, feed?.players],
  );
  const ui = resp ? GAMES[resp.game] : undefined;
  const lines = useMemo(
    () => (ui && feed ? withPresence(ui.narrate(feed.events, names), feed.presenceNotes, names) : []),
    [ui, feed?.events, feed?.presenceNotes, names],
  );

  if (!feed || (!resp && !feed.fatal)) {
    return (
      <section class="matchpage">
        <h1>Match</h1>
        <p class="muted" role="status">
          {feed?.phase === "joining" ? "Taking the open seat…" : "Loading the match…"}
        </p>
      </section>
    );
  }
  if (feed.fatal || !resp) {
    return (
      <section class="matchpage">
        <h1>Match</h1>
        <p class="error" role="alert">
          {feed.fatal}
        </p>
        {feed.signInAgain && <a href={href({ page: "login" })}>Sign in</a>}
      </section>
    );
  }
  if (!ui) {
    return (
      <section class="matchpage">
        <h1>Match</h1>
        <p class="error">This page cannot draw the game “{resp.game}” yet.</p>
      </section>
    );
  }
  const seat = resp.seat;
  // A seat still open (or held for an invited player): no clock runs until it is taken.
  const waiting = feed.waiting;
  const Board = ui.Board;
  const phaseText =
    feed.phase === "reconnecting"
      ? "Connection lost: reconnecting…"
      : feed.phase === "connecting"
        ? "Connecting…"
        : null;
  return (
    <section class="matchpage" aria-labelledby="match-title">
      <header class="matchhead">
        <h1 id="match-title">{ui.title}</h1>
        <p class="muted">
          {seat !== undefined ? `You play ${names.colour(seat)}` : "You are watching"}
          {feed.joined ? " (you took the open seat)" : ""} · match <code>{matchId.slice(0, 8)}</code>
        </p>
        {phaseText && (
          <p class="warn" role="status">
            {phaseText}
          </p>
        )}
        {feed.notice && (
          <p class="notice" role="alert">
            {feed.notice}
          </p>
        )}
      </header>
      {waiting && seat !== undefined && <Invite matchId={matchId} />}
      {resp.outcome && <EndScreen matchId={matchId} resp={resp} names={names} ui={ui} me={me} />}
      <SeatBar
        resp={resp}
        receivedAt={feed.receivedAt}
        names={names}
        info={(s) => ui.seat(resp, s, names)}
        moved={ui.moved?.(resp)}
        reserve={ui.reserve?.(resp)}
        away={(s) => feed.away(s) && !botSeat(s, names)}
      />
      <div class="matchgrid">
        <div class="boardcol">
          {feed.canMove && (
            <p class="yourmove" role="status">
              Your move.
            </p>
          )}
          {feed.sending && (
            <p class="muted" role="status">
              Sending…
            </p>
          )}
          <Board
            resp={resp}
            names={names}
            events={feed.events}
            canMove={feed.canMove}
            submit={(m) => void feed.submit(m)}
          />
          {seat !== undefined && !resp.outcome && (
            <div class="actions resignrow">
              <Resign onResign={() => void feed.resign()} busy={feed.sending} />
            </div>
          )}
        </div>
        <EventLog lines={lines} />
      </div>
    </section>
  );
}
