// Small pieces the pages share: the games list, a game and a time picker, a pager, an
// error line, a player's link, and formatting of times and ids. No page logic here.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { matches, plainError } from "./api.js";
import type { GameInfo } from "./gen/colosseum/v1/colosseum_pb.js";
import { href } from "./route.js";

let gamesLoaded: Promise<GameInfo[]> | null = null;

/** The hosted games (ListGames, asked once per page load; asked again after a failure). */
export function loadGames(): Promise<GameInfo[]> {
  gamesLoaded ??= matches.listGames({}).then(
    (r) => r.games,
    (e: unknown) => {
      gamesLoaded = null;
      throw e;
    },
  );
  return gamesLoaded;
}

/** What a load gives a component: the value, or the plain words of its failure. */
export interface Loaded<T> {
  value: T | null;
  error: string | null;
  /** Loads again (the value stays shown meanwhile). */
  reload: () => void;
}

/**
 * Runs `load` when the component mounts and whenever `deps` change; a result that
 * arrives after a newer load started (or after unmount) is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => {
        if (!live) return;
        setValue(v);
        setError(null);
      },
      (e: unknown) => {
        if (live) setError(plainError(e));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { value, error, reload: () => setTick((t) => t + 1) };
}

/** The hosted games, for a component. */
export function useGames(): Loaded<GameInfo[]> {
  return useLoad(loadGames, []);
}

/** Calls `f` every `ms` while mounted (and `on`). */
export function useEvery(ms: number, f: () => void, on = true): void {
  useEffect(() => {
    if (!on) return;
    const t = setInterval(f, ms);
    return () => clearInterval(t);
  }, [ms, on]);
}

/** A game's title for people (its name when the list has not come). */
export function gameTitle(games: GameInfo[] | null, name: string): string {
  return games?.find((g) => g.name === name)?.title ?? name;
}

/** A labelled select of the hosted games. */
export function GamePicker(props: {
  id: string;
  games: GameInfo[];
  value: string;
  onChange: (game: string) => void;
  label?: string;
}) {
  return (
    <span class="field">
      <label for={props.id}>{props.label ?? "Game"}</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange((e.currentTarget).value)}
      >
        {props.games.map((g) => (
          <option key={g.name} value={g.name}>
            {g.title}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Times per move the pages offer, in milliseconds. */
export const MOVE_TIMES: { ms: number; label: string }[] = [
  { ms: 60_000, label: "1 minute" },
  { ms: 5 * 60_000, label: "5 minutes" },
  { ms: 60 * 60_000, label: "1 hour" },
  { ms: 24 * 60 * 60_000, label: "1 day" },
  { ms: 3 * 24 * 60 * 60_000, label: "3 days" },
];

/** The times per move a game takes: the one its rules fix (ListGames says which), else
 * every time the pages offer. */
export function moveTimesFor(games: GameInfo[], game: string): { ms: number; label: string }[] {
  const fixed = games.find((g) => g.name === game)?.fixedMoveTimeMs;
  if (fixed === undefined) return MOVE_TIMES;
  const ms = Number(fixed);
  return [MOVE_TIMES.find((t) => t.ms === ms) ?? { ms, label: moveTimeLabel(ms) }];
}

/** A labelled select of the times per move `game` takes. */
export function TimePicker(props: {
  id: string;
  games: GameInfo[];
  game: string;
  value: number;
  onChange: (ms: number) => void;
}) {
  const times = moveTimesFor(props.games, props.game);
  const value = times.some((t) => t.ms === props.value) ? props.value : times[0].ms;
  return (
    <span class="field">
      <label for={props.id}>Time per move</label>
      <select
        id={props.id}
        value={String(value)}
        onChange={(e) => props.onChange(Number((e.currentTarget).value))}
      >
        {times.map((t) => (
          <option key={t.ms} value={String(t.ms)}>
            {t.label}
          </option>
        ))}
      </select>
    </span>
  );
}

/** A time per move in words. */
export function moveTimeLabel(ms: number | bigint): string {
  const n = Number(ms) || 60_000;
  const known = MOVE_TIMES.find((t) => t.ms === n);
  if (known) return known.label;
  if (n % 86_400_000 === 0) return `${n / 86_400_000} days`;
  if (n % 3_600_000 === 0) return `${n / 3_600_000} hours`;
  if (n % 60_000 === 0) return `${n / 60_000} minutes`;
  return `${Math.round(n / 1000)} seconds`;
}

/** A failure in plain words, announced to screen readers (nothing when `error` is empty). */
export function ErrorLine({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** A status line screen readers announce politely. */
export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="status" role="status" aria-live="polite">
      {children}
    </p>
  );
}

/** A section of a page: a panel with a heading. */
export function Panel(props: { title: string; id: string; children: ComponentChildren; class?: string }) {
  return (
    <section class={props.class ? `panel ${props.class}` : "panel"} aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** The first eight characters of an id, for a name not known. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A link to a player's page. */
export function PlayerLink({ id, name }: { id: string; name?: string }) {
  return <a href={href({ page: "player", playerId: id })}>{name || `Player ${shortId(id)}`}</a>;
}

/** A link to a match's page; `label`, when given, is its accessible name (starting with
 * the words shown, so a voice user can say what they see). */
export function MatchLink({ id, children, label }: { id: string; children?: ComponentChildren; label?: string }) {
  return (
    <a href={href({ page: "match", matchId: id })} aria-label={label}>
      {children ?? `Match ${shortId(id)}`}
    </a>
  );
}

/** A date and time in the reader's locale, from Unix milliseconds. */
export function when(ms: number | bigint): string {
  const n = Number(ms);
  if (!n) return "";
  return new Date(n).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** How long until (or since) `ms`, in rough words: "in 4 minutes", "2 hours ago". */
export function relative(ms: number | bigint, now = Date.now()): string {
  const d = Number(ms) - now;
  const a = Math.abs(d);
  const [n, unit] =
    a < 60_000
      ? [Math.round(a / 1000), "second"]
      : a < 3_600_000
        ? [Math.round(a / 60_000), "minute"]
        : a < 86_400_000
          ? [Math.round(a / 3_600_000), "hour"]
          : [Math.round(a / 86_400_000), "day"];
  if (d < 0 && a < 10_000) return "just now";
  const words = `${n} ${unit}${n === 1 ? "" : "s"}`;
  return d >= 0 ? `in ${words}` : `${words} ago`;
}

/** Prev/next buttons for a paged list, with where the page is. */
export function Pager(props: {
  label: string;
  from: number;
  count: number;
  total: number;
  onFrom: (from: number) => void;
  pageSize: number;
}) {
  const last = props.from + props.count - 1;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" disabled={props.from <= 1} onClick={() => props.onFrom(Math.max(1, props.from - props.pageSize))}>
        Previous
      </button>
      <span>{props.count ? `${props.from}–${last} of ${props.total}` : `none of ${props.total}`}</span>
      <button type="button" disabled={last >= props.total} onClick={() => props.onFrom(props.from + props.pageSize)}>
        Next
      </button>
    </nav>
  );
}

/** A rating for people: whole points. */
export function rating(r: number): string {
  return Math.round(r).toString();
}

/** A list read a page at a time by token (ListMyMatches, ListLiveMatches). */
export interface Pages<T> {
  items: T[];
  error: string | null;
  /** Whether another page may follow. */
  more: boolean;
  loading: boolean;
  /** Reads the next page onto the list. */
  next: () => void;
  /** Reads the list again from its first page. */
  reload: () => void;
}

/**
 * Pages of a list: `read(token)` answers a page and the next page's token (empty: the
 * last). `deps` restart the list; a page that arrives after a restart is dropped.
 */
export function usePages<T>(
  read: (token: string) => Promise<{ items: T[]; next: string }>,
  deps: unknown[],
  on = true,
): Pages<T> {
  const [items, setItems] = useState<T[]>([]);
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [gen, setGen] = useState(0);
  const fetchPage = (from: string, g: number, replace: boolean) => {
    setLoading(true);
    read(from).then(
      (p) => {
        if (g !== genNow.current) return;
        setItems((old) => (replace ? p.items : [...old, ...p.items]));
        setToken(p.next);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (g !== genNow.current) return;
        setError(plainError(e));
        setLoading(false);
      },
    );
  };
  const genNow = useRef(0);
  useEffect(() => {
    if (!on) return;
    genNow.current += 1;
    fetchPage("", genNow.current, true);
  }, [...deps, gen, on]);
  return {
    items,
    error,
    more: token !== "",
    loading,
    next: () => fetchPage(token, genNow.current, false),
    reload: () => setGen((x) => x + 1),
  };
}
