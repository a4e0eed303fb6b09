import type { Session } from "../api.js";
export function SessionBadge({ me }: { me: Session | null }) {
  return <span class="who">{me ? me.displayName : "not signed in"}</span>;
}
