// The page's routes: the part of the URL after `#`, so the gateway serves one page for
// all of them. Nothing secret is ever put in a route (ids only, never a token).

/** Where the page is. */
export type Route =
  | { page: "lobby" }
  | { page: "login" }
  | { page: "match"; matchId: string }
  | { page: "leaderboard"; game: string; board: string }
  | { page: "player"; playerId: string }
  | { page: "tournament"; tournamentId: string }
  | { page: "verify"; matchId?: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[a-z0-9-]{1,32}$/;

/** The route a hash names (the lobby for anything else). */
export function parse(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const [head, a, b] = parts;
  switch (head) {
    case "login":
      return { page: "login" };
    case "match":
      if (a && UUID.test(a)) return { page: "match", matchId: a.toLowerCase() };
      break;
    case "leaderboard":
      return {
        page: "leaderboard",
        game: a && NAME.test(a) ? a : "gops",
        board: b && NAME.test(b) ? b : "established",
      };
    case "player":
      if (a && UUID.test(a)) return { page: "player", playerId: a.toLowerCase() };
      break;
    case "tournaments":
      if (a && UUID.test(a)) return { page: "tournament", tournamentId: a.toLowerCase() };
      break;
    case "verify":
      // #/verify/<match id>: check that finished match's record.
      return a && UUID.test(a) ? { page: "verify", matchId: a.toLowerCase() } : { page: "verify" };
  }
  return { page: "lobby" };
}

/** The hash of a route. */
export function href(r: Route): string {
  switch (r.page) {
    case "lobby":
      return "#/";
    case "login":
      return "#/login";
    case "match":
      return `#/match/${r.matchId}`;
    case "leaderboard":
      return `#/leaderboard/${r.game}/${r.board}`;
    case "player":
      return `#/player/${r.playerId}`;
    case "tournament":
      return `#/tournaments/${r.tournamentId}`;
    case "verify":
      return r.matchId ? `#/verify/${r.matchId}` : "#/verify";
  }
}

/** Goes to `r`. */
export function go(r: Route): void {
  location.hash = href(r);
}
