// Sign in, register, or continue as a guest; and, once in, who you are and Log out.
import { useState } from "preact/hooks";
import { plainError, type Session } from "../api.js";
import { href } from "../route.js";
import { continueAsGuest, logOut, PASSWORD_RULE, register, signIn } from "../session.js";
import { ErrorLine, Panel } from "../ui.js";

/** Runs a form's action with a busy flag and the failure in plain words. */
function useAction(): [boolean, string | null, (f: () => Promise<unknown>) => Promise<void>] {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(plainError(e));
    } finally {
      setBusy(false);
    }
  };
  return [busy, error, run];
}

const toLobby = () => {
  location.hash = href({ page: "lobby" });
};

function SignIn() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, error, run] = useAction();
  return (
    <Panel title="Sign in" id="signin-h">
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await signIn(email, password);
            toLobby();
          });
        }}
      >
        <label for="signin-email">Email</label>
        <input id="signin-email" type="email" autocomplete="username" required value={email}
          onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="signin-password">Password</label>
        <input id="signin-password" type="password" autocomplete="current-password" required value={password}
          onInput={(e) => setPassword(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorLine error={error} />
      </form>
    </Panel>
  );
}

function Register() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [board, setBoard] = useState(false);
  const [busy, error, run] = useAction();
  return (
    <Panel title="Create an account" id="register-h">
      <p class="muted">An account plays rated matches and can appear on the leaderboards.</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await register(email, password, name.trim(), board);
            toLobby();
          });
        }}
      >
        <label for="register-email">Email</label>
        <input id="register-email" type="email" autocomplete="email" required value={email}
          aria-describedby="register-email-note" onInput={(e) => setEmail(e.currentTarget.value)} />
        <span id="register-email-note" class="note">Never shown to other players.</span>
        <label for="register-password">Password</label>
        <span id="register-password-rule" class="note">{PASSWORD_RULE}</span>
        <input id="register-password" type="password" autocomplete="new-password" required minLength={8}
          maxLength={128} value={password} aria-describedby="register-password-rule"
          onInput={(e) => setPassword(e.currentTarget.value)} />
        <label for="register-name">Display name (optional)</label>
        <input id="register-name" type="text" autocomplete="nickname" maxLength={32} value={name}
          onInput={(e) => setName(e.currentTarget.value)} />
        <label class="check" for="register-board">
          <input id="register-board" type="checkbox" checked={board}
            onChange={(e) => setBoard(e.currentTarget.checked)} />
          Show me on the leaderboards
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Create account
        </button>
        <ErrorLine error={error} />
      </form>
    </Panel>
  );
}

function Guest() {
  const [name, setName] = useState("");
  const [busy, error, run] = useAction();
  return (
    <Panel title="Play as a guest" id="guest-h">
      <p class="muted">No account: casual matches only, never rated.</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await continueAsGuest(name.trim());
            toLobby();
          });
        }}
      >
        <label for="guest-name">Display name</label>
        <input id="guest-name" type="text" autocomplete="nickname" maxLength={32} value={name}
          aria-describedby="guest-name-note" onInput={(e) => setName(e.currentTarget.value)} />
        <span id="guest-name-note" class="note">1 to 32 characters; leave empty to be given one.</span>
        <button type="submit" disabled={busy}>
          Continue as guest
        </button>
        <ErrorLine error={error} />
      </form>
    </Panel>
  );
}

function SignedIn({ me }: { me: Session }) {
  const [busy, error, run] = useAction();
  return (
    <Panel title="You are signed in" id="signed-h">
      <p>
        Playing as <strong>{me.displayName}</strong> {me.account ? "(account)" : "(guest)"}.
      </p>
      <div class="row">
        <a class="button" href={href({ page: "lobby" })}>
          Go to the lobby
        </a>
        <button type="button" disabled={busy} onClick={() => void run(logOut)}>
          Log out
        </button>
      </div>
      <ErrorLine error={error} />
    </Panel>
  );
}

export function Login({ me }: { me: Session | null }) {
  return (
    <>
      <h1>{me ? "Your session" : "Sign in"}</h1>
      {me && <SignedIn me={me} />}
      {(!me || !me.account) && (
        <div class="grid">
          <SignIn />
          <Register />
          {!me && <Guest />}
        </div>
      )}
    </>
  );
}
