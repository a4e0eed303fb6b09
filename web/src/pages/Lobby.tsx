// The lobby: play a bot at once, quick pairing, open seeks, a challenge link, the
// player's own matches in progress and live matches to watch.
import type { Session } from "../api.js";
import { Challenge } from "../lobby/Challenge.js";
import { LiveMatches } from "../lobby/LiveMatches.js";
import { MyMatches } from "../lobby/MyMatches.js";
import { PlayBot } from "../lobby/PlayBot.js";
import { QuickPair } from "../lobby/QuickPair.js";
import { Seeks } from "../lobby/Seeks.js";
import { ErrorLine, useGames } from "../ui.js";

export function Lobby({ me }: { me: Session | null }) {
  const games = useGames();
  return (
    <>
      <h1>Lobby</h1>
      {!me && (
        <p class="muted">
          You are not signed in: playing makes you a guest. <a href="#/login">Sign in or create an account</a> for
          rated play.
        </p>
      )}
      <ErrorLine error={games.error} />
      {games.value && (
        <div class="grid lobby">
          {me && <MyMatches games={games.value} me={me} />}
          <PlayBot games={games.value} />
          <QuickPair games={games.value} me={me} />
          <Seeks games={games.value} me={me} />
          <Challenge games={games.value} />
          <LiveMatches games={games.value} me={me} />
        </div>
      )}
    </>
  );
}
