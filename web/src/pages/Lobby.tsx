import type { Session } from "../api.js";
export function Lobby(_: { me: Session | null }) {
  return <h1>Lobby</h1>;
}
