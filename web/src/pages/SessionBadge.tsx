// The header's corner: who the page plays as (a link to their page) and Log out, or a
// link to sign in.
import { useEffect, useState } from "preact/hooks";
import { Code, ConnectError } from "@connectrpc/connect";
import { lobby, plainError, setSession, type Session } from "../api.js";
import { href } from "../route.js";
import { logOut } from "../session.js";

/**
 * Checks a held session once per token (GetProfile): one the server no longer accepts
 * (logged out elsewhere, expired) is forgotten, and one whose name changed is updated.
 */
function useCheckedSession(me: Session | null): boolean {
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    if (!me) return;
    setEnded(false);
    let live = true;
    lobby.getProfile({}).then(
      (r) => {
        const name = r.profile?.displayName;
        if (live && name && name !== me.displayName) setSession({ ...me, displayName: name });
      },
      (e: unknown) => {
        if (!live || !(e instanceof ConnectError) || e.code !== Code.Unauthenticated) return;
        setEnded(true);
        setSession(null);
      },
    );
    return () => {
      live = false;
    };
  }, [me?.token]);
  return ended;
}

export function SessionBadge({ me }: { me: Session | null }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ended = useCheckedSession(me);
  if (!me)
    return (
      <span class="who">
        {ended && <span role="status">Your session has ended.</span>}
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
