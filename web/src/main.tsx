// The web client's entry: the header (who you are, the pages), then the page the route
// names. Each page lives in src/pages; each game's board in src/games.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onSession, session, type Session } from "./api.js";
import { href, parse, type Route } from "./route.js";
import { Lobby } from "./pages/Lobby.js";
import { Login } from "./pages/Login.js";
import { MatchPage } from "./pages/Match.js";
import { Leaderboard } from "./pages/Leaderboard.js";
import { Player } from "./pages/Player.js";
import { Tournament } from "./pages/Tournament.js";
import { Verify } from "./pages/Verify.js";
import { SessionBadge } from "./pages/SessionBadge.js";

/** The route of the page's hash, following its changes. The hash can change between the
 * first render (which read it) and the effect that listens: a link opened just as the page
 * loads. So the effect reads it again once it listens, or that change is missed and the
 * page stays where it started. */
function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const on = () => {
      const next = parse(location.hash);
      setRoute((cur) => (href(cur) === href(next) ? cur : next));
    };
    addEventListener("hashchange", on);
    on();
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}

function useSession(): Session | null {
  const [s, setS] = useState(session);
  useEffect(() => onSession(setS), []);
  return s;
}

function Page({ route, me }: { route: Route; me: Session | null }) {
  switch (route.page) {
    case "lobby":
      return <Lobby me={me} />;
    case "login":
      return <Login me={me} />;
    case "match":
      return <MatchPage key={route.matchId} matchId={route.matchId} me={me} />;
    case "leaderboard":
      return <Leaderboard game={route.game} board={route.board} />;
    case "player":
      return <Player key={route.playerId} playerId={route.playerId} me={me} />;
    case "tournament":
      return <Tournament key={route.tournamentId} tournamentId={route.tournamentId} />;
    case "verify":
      return <Verify key={route.matchId ?? ""} matchId={route.matchId} />;
  }
}

function App() {
  const route = useRoute();
  const me = useSession();
  return (
    <>
      <header class="top">
        <a class="brand" href={href({ page: "lobby" })}>
          Colosseum
        </a>
        <nav aria-label="Pages">
          <a href={href({ page: "lobby" })}>Lobby</a>
          <a href={href({ page: "leaderboard", game: "gops", board: "established" })}>Leaderboards</a>
          <a href={href({ page: "verify" })}>Verify</a>
        </nav>
        <SessionBadge me={me} />
      </header>
      <main id="main">
        <Page route={route} me={me} />
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
