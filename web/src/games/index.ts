// The hosted games' boards, by the name the API uses (GetViewResponse.game).
import type { GameUI } from "./common.js";
import { curePlague } from "./cure_plague.js";
import { duelingMonsters } from "./dueling_monsters.js";
import { gops } from "./gops.js";
import { hexspiel } from "./hexspiel.js";
import { masterminds } from "./masterminds.js";

export const GAMES: Record<string, GameUI> = {
  gops,
  "dueling-monsters": duelingMonsters,
  hexspiel,
  "cure-plague": curePlague,
  masterminds,
};
