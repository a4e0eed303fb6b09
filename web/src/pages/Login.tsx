import type { Session } from "../api.js";
export function Login(_: { me: Session | null }) {
  return <h1>Sign in</h1>;
}
