// Signing in and out: each way in keeps its session with api.ts's setSession, and leaves
// the one held before (a guest's, say) with Logout so its token is refused from then on.
import { lobby, matches, session, setSession, type Session } from "./api.js";
import type { AccountSession } from "./gen/colosseum/v1/lobby_pb.js";

/** Ends the session held on the server (best effort: an ended one is already refused). */
async function endHeld(): Promise<void> {
  if (!session()) return;
  try {
    await lobby.logout({});
  } catch {
    // expired or unreachable: the token is forgotten below all the same
  }
}

function keep(s: AccountSession | undefined): Session {
  if (!s) throw new Error("The server answered without a session; try again.");
  const kept: Session = { token: s.token, playerId: s.playerId, displayName: s.displayName, account: true };
  setSession(kept);
  return kept;
}

/** Signs in to an account. */
export async function signIn(email: string, password: string): Promise<Session> {
  const r = await lobby.login({ email, password });
  await endHeld();
  return keep(r.session);
}

/** Creates an account and signs in to it. */
export async function register(
  email: string,
  password: string,
  displayName: string,
  leaderboard: boolean,
): Promise<Session> {
  const r = await lobby.register({ email, password, displayName, leaderboard });
  await endHeld();
  return keep(r.session);
}

/** Starts a guest session under `displayName` (empty: the server picks one). */
export async function continueAsGuest(displayName: string): Promise<Session> {
  const g = await matches.createGuestSession({ displayName });
  await endHeld();
  const s: Session = { token: g.token, playerId: g.playerId, displayName: g.displayName, account: false };
  setSession(s);
  return s;
}

/** Logs out: the server ends the session, then this browser forgets it. */
export async function logOut(): Promise<void> {
  await endHeld();
  setSession(null);
}

/** The password rule, said before it is typed (lobby.proto's RegisterRequest.password). */
export const PASSWORD_RULE = "At least 8 characters (at most 128).";
