// The gateway's services as the page reaches them: gRPC-Web at the page's own origin,
// clients made from the descriptors generated from proto/ (src/gen), and the session.
// The token lives in localStorage and travels only in the `authorization` header: never
// in a URL, a log line or the DOM.
import { createClient, type Client, type Interceptor, ConnectError, Code } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { ColosseumService } from "./gen/colosseum/v1/colosseum_pb.js";
import { LobbyService } from "./gen/colosseum/v1/lobby_pb.js";
import { TournamentViewService } from "./gen/colosseum/v1/tournament_view_pb.js";

/** Who the page plays as: a guest's or an account's session. */
export interface Session {
  token: string;
  playerId: string;
  displayName: string;
  /** An account (rated play, leaderboards) or a guest. */
  account: boolean;
}

const SESSION_KEY = "colosseum.session";

/** The session this browser holds, if any. */
export function session(): Session | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (typeof s.token !== "string" || typeof s.playerId !== "string") return null;
    return {
      token: s.token,
      playerId: s.playerId,
      displayName: typeof s.displayName === "string" ? s.displayName : "",
      account: s.account === true,
    };
  } catch {
    return null;
  }
}

/** Keeps `s` as this browser's session (null: forgets it). Listeners hear of the change. */
export function setSession(s: Session | null): void {
  if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else localStorage.removeItem(SESSION_KEY);
  for (const l of listeners) l(s);
}

const listeners = new Set<(s: Session | null) => void>();

/** Calls `l` whenever the session changes; returns the unsubscribe. */
export function onSession(l: (s: Session | null) => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Adds the session's bearer token to every call made while one is held. */
const bearer: Interceptor = (next) => async (req) => {
  const s = session();
  if (s) req.header.set("authorization", `Bearer ${s.token}`);
  return next(req);
};

const transport = createGrpcWebTransport({
  baseUrl: typeof location === "undefined" ? "http://127.0.0.1:50051" : location.origin,
  interceptors: [bearer],
});

/** Matches, views, moves, records (colosseum.proto). */
export const matches: Client<typeof ColosseumService> = createClient(ColosseumService, transport);
/** Accounts, queues, seeks, ratings, leaderboards (lobby.proto). */
export const lobby: Client<typeof LobbyService> = createClient(LobbyService, transport);
/** Public tournament pages (tournament_view.proto): open to anyone, so no session is sent. */
export const tournamentView: Client<typeof TournamentViewService> = createClient(
  TournamentViewService,
  createGrpcWebTransport({ baseUrl: typeof location === "undefined" ? "http://127.0.0.1:50051" : location.origin }),
);

/** A guest session on its way: callers at the same moment share it (one guest, not two). */
let guestPending: Promise<Session> | null = null;

/** A session to play with: the one held, or a new guest's (named `name` by the first of
 * the callers that share it). */
export function ensureSession(name = ""): Promise<Session> {
  const held = session();
  if (held) return Promise.resolve(held);
  guestPending ??= (async () => {
    const g = await matches.createGuestSession({ displayName: name });
    // Signed in meanwhile: that session stays, the guest is left unused.
    const now = session();
    if (now) return now;
    const s: Session = { token: g.token, playerId: g.playerId, displayName: g.displayName, account: false };
    setSession(s);
    return s;
  })().finally(() => {
    guestPending = null;
  });
  return guestPending;
}

/** A refusal in plain words for the page: the gateway's message, without the code's name. */
export function plainError(e: unknown): string {
  if (e instanceof ConnectError) {
    switch (e.code) {
      case Code.Unauthenticated:
        return "Your session has ended: sign in again.";
      case Code.Unavailable:
        return "The server is not reachable right now; trying again may help.";
      case Code.Canceled:
      case Code.Unknown:
      case Code.InvalidArgument:
      case Code.DeadlineExceeded:
      case Code.NotFound:
      case Code.AlreadyExists:
      case Code.PermissionDenied:
      case Code.ResourceExhausted:
      case Code.FailedPrecondition:
      case Code.Aborted:
      case Code.OutOfRange:
      case Code.Unimplemented:
      case Code.Internal:
      case Code.DataLoss:
        return e.rawMessage;
    }
  }
  return e instanceof Error ? e.message : String(e);
}

/** A fresh idempotency key (a UUID): one per move or creation the page means to make. */
export function newKey(): string {
  return crypto.randomUUID();
}
