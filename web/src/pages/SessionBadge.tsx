// The header's corner: who the page plays as (a link to their page) and Log out, or a
// link to sign in.
import { useState } from "preact/hooks";
import { plainError, type Session } from "../api.js";
import { href } from "../route.js";
import { logOut } from "../session.js";

export function SessionBadge({ me }: { me: Session | null }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!me)
    return (
      <span class="who">
        <a href={href({ page: "login" })}>Sign in</a>
      </span>
    );
  const out = async () => {
    setBusy(true);
    setError(null);
    try {
      await logOut();
      location.hash = href({ page: "lobby" });
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="who">
      <a href={href({ page: "player", playerId: me.playerId })} aria-label={`Your page: ${me.displayName}`}>
        {me.displayName}
      </a>
      {!me.account && <span class="tag">guest</span>}
      <button type="button" class="small" disabled={busy} onClick={() => void out()}>
        Log out
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
