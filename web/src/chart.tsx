// A rating history drawn by hand as SVG: the rating after each rated match as a line,
// its deviation as a band around it, a few rating marks on the left and the first and
// last dates below. Colours come from style.css classes (the CSP allows no style
// attributes); the figure has a text summary for screen readers.

/** One point of a history: when, the rating after, and its deviation. */
export interface RatingPoint {
  atMs: number;
  rating: number;
  deviation: number;
  /** Shown on hover and to screen readers: the match's result, say. */
  label: string;
}

import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

const LEFT = 48;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 28;

/** Round rating marks between lo and hi (about four). */
function marks(lo: number, hi: number): number[] {
  const span = Math.max(hi - lo, 1);
  const step = [10, 20, 25, 50, 100, 200, 250, 500].find((s) => span / s <= 4) ?? 1000;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

function day(ms: number): string {
  return new Date(ms).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** The width the figure has on screen (so the chart's text keeps its size at any width). */
function useWidth(): [RefObject<HTMLElement>, number] {
  const ref = useRef<HTMLElement>(null);
  const [w, setW] = useState(640);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setW(el.clientWidth || 640));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, w];
}

/** The chart of `points` (oldest first), titled `title`. */
export function RatingChart({ points, title }: { points: RatingPoint[]; title: string }) {
  const [ref, width] = useWidth();
  if (!points.length) return <p class="muted">No rated matches yet.</p>;
  const W = Math.max(280, Math.min(900, Math.round(width)));
  const H = W < 500 ? 200 : 260;
  const lo0 = Math.min(...points.map((p) => p.rating - p.deviation));
  const hi0 = Math.max(...points.map((p) => p.rating + p.deviation));
  const pad = Math.max((hi0 - lo0) * 0.05, 10);
  const lo = lo0 - pad;
  const hi = hi0 + pad;
  // Evenly spaced by match (matches cluster in time; each is one step of the rating).
  const x = (i: number) => (points.length === 1 ? (LEFT + W - RIGHT) / 2 : LEFT + (i * (W - LEFT - RIGHT)) / (points.length - 1));
  const y = (r: number) => TOP + ((hi - r) * (H - TOP - BOTTOM)) / (hi - lo);
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  const upper = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating + p.deviation).toFixed(1)}`);
  const lower = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating - p.deviation).toFixed(1)}`).reverse();
  const first = points[0];
  const last = points[points.length - 1];
  const rs = points.map((p) => Math.round(p.rating));
  const summary =
    points.length === 1
      ? `${title}: ${rs[0]}, ${points[0].label}.`
      : `${title}: ${points.length} points, from ${rs[0]} to ${rs[rs.length - 1]}; highest ${Math.max(...rs)}, lowest ${Math.min(...rs)}.`;
  return (
    <figure class="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        {marks(lo, hi).map((m) => (
          <g key={m}>
            <line class="grid-line" x1={LEFT} x2={W - RIGHT} y1={y(m)} y2={y(m)} />
            <text class="axis" x={LEFT - 6} y={y(m) + 4} text-anchor="end">
              {m}
            </text>
          </g>
        ))}
        {points.length > 1 && <polygon class="band" points={[...upper, ...lower].join(" ")} />}
        {points.length === 1 && (
          <line class="error-bar" x1={x(0)} x2={x(0)} y1={y(first.rating + first.deviation)} y2={y(first.rating - first.deviation)} />
        )}
        {points.length > 1 && <polyline class="line" points={line} />}
        {points.map((p, i) => (
          <circle key={i} class="dot" cx={x(i)} cy={y(p.rating)} r={points.length > 40 ? 2.5 : 4}>
            <title>{`${day(p.atMs)}: ${Math.round(p.rating)} ±${Math.round(p.deviation)} (${p.label})`}</title>
          </circle>
        ))}
        <text class="axis" x={LEFT} y={H - 8} text-anchor="start">
          {day(first.atMs)}
        </text>
        {points.length > 1 && (
          <text class="axis" x={W - RIGHT} y={H - 8} text-anchor="end">
            {day(last.atMs)}
          </text>
        )}
      </svg>
      <figcaption class="muted">{summary} The band is the rating's deviation.</figcaption>
    </figure>
  );
}
