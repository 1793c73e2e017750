/**
 * The timeline drawn: an SVG in a fixed coordinate space (it scales with the
 * page), one mark per event, heartbeat, `[DONE]` and cut, each carrying its
 * time (`data-t`, ms since the request arrived) and position (`data-x`).
 * Click a mark, or focus the drawing and use ←/→, to pick it.
 */
import { svg, h } from "./dom.js";
import type { TimelineItem } from "./model.js";
import { layoutTimeline, msLabel, type Mark } from "./timeline.js";

/** The drawing's coordinate width; it is scaled to the page's width. */
export const TIMELINE_WIDTH = 1000;
const HEIGHT = 132;
const AXIS_Y = 96;
const EVENT_TOP = 40;
const HEARTBEAT_Y = 84;
/** Room a mark's label needs to its right; nearer the edge it goes to the left. */
const LABEL_ROOM = 90;
/** A mark's clickable width at least (events can be closer than a pixel). */
const HIT_WIDTH = 7;

export interface TimelineView {
  element: HTMLElement;
  /** Shows a mark as picked (by its position in the timeline). */
  select(position: number | null): void;
}

export function timelineView(
  items: readonly TimelineItem[],
  onPick: (position: number) => void,
  waitMs = 0,
): TimelineView {
  const layout = layoutTimeline(items, TIMELINE_WIDTH, waitMs);
  const root = svg("svg", {
    class: "timeline",
    viewBox: `0 0 ${TIMELINE_WIDTH} ${HEIGHT}`,
    role: "group",
    tabindex: 0,
    "aria-label": `Timeline: ${items.length} marks over ${msLabel(layout.marks.at(-1)?.t ?? 0)}. Use the left and right arrow keys to step through them.`,
    "data-scale": layout.scale,
  });

  // Axis and ticks.
  root.append(
    svg("line", {
      class: "axis",
      x1: layout.ticks[0]?.x ?? 0,
      x2: layout.ticks.at(-1)?.x ?? TIMELINE_WIDTH,
      y1: AXIS_Y,
      y2: AXIS_Y,
    }),
  );
  for (const tick of layout.ticks) {
    root.append(
      svg("line", { class: "tick", x1: tick.x, x2: tick.x, y1: AXIS_Y, y2: AXIS_Y + 5 }),
      svg("text", { class: "tick-label", x: tick.x, y: AXIS_Y + 18, "text-anchor": "middle" }, tick.label),
    );
  }

  // Latency and pauses, as brackets above the events.
  const bracket = (cls: string, g: { x1: number; x2: number; label: string; from: number; to: number }, y: number) =>
    svg(
      "g",
      { class: `gap ${cls}`, "data-from": g.from, "data-to": g.to },
      svg("path", { d: `M${g.x1},${y + 5} V${y} H${g.x2} V${y + 5}` }),
      svg("text", { x: (g.x1 + g.x2) / 2, y: y - 4, "text-anchor": "middle" }, g.label),
    );
  if (layout.latency && layout.latency.to > 0) root.append(bracket("latency", layout.latency, 20));
  for (const p of layout.pauses) root.append(bracket("pause", p, 20));

  const marks: SVGGElement[] = [];
  // "end" follows [DONE] at once: one label is enough.
  const hasDone = layout.marks.some((m) => m.kind === "done");
  for (const mark of layout.marks) {
    const g = markElement(mark, mark.kind === "end" && hasDone);
    g.addEventListener("click", () => onPick(mark.position));
    marks.push(g);
    root.append(g);
  }

  let selected: number | null = null;
  const select = (position: number | null) => {
    if (selected !== null) marks[selected]?.classList.remove("picked");
    selected = position;
    if (position !== null) marks[position]?.classList.add("picked");
  };
  root.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    e.preventDefault();
    if (marks.length === 0) return;
    const next =
      selected === null ? 0 : Math.min(marks.length - 1, Math.max(0, selected + (e.key === "ArrowRight" ? 1 : -1)));
    onPick(next);
  });

  const legend = h(
    "ul",
    { class: "legend", "aria-label": "Legend" },
    ...[
      ["event", "event"],
      ["terminal", "terminal event"],
      ["heartbeat", "heartbeat"],
      ["done", "[DONE]"],
      ["cut", "drop, hang or abort"],
    ].map(([kind, text]) => h("li", {}, h("span", { class: `swatch k-${kind}`, "aria-hidden": "true" }), text)),
  );
  const wrap = h("div", { class: "timeline-wrap" });
  wrap.append(root);
  return { element: h("div", {}, wrap, legend), select };
}

/** A label's x and anchor: to the right of its mark, or to the left near the right edge. */
const labelAt = (x: number) =>
  x > TIMELINE_WIDTH - LABEL_ROOM ? { x: x - 5, "text-anchor": "end" } : { x: x + 5, "text-anchor": "start" };

function markElement(mark: Mark, unlabelled: boolean): SVGGElement {
  const g = svg("g", {
    class: `mark k-${mark.kind}`,
    "data-position": mark.position,
    "data-t": mark.t,
    "data-x": mark.x,
    "data-kind": mark.source,
    "data-index": mark.index ?? undefined,
  });
  g.append(svg("title", {}, `${mark.label} at ${msLabel(mark.t)}`));
  g.append(
    svg("rect", {
      class: "hit",
      x: mark.x - HIT_WIDTH / 2,
      y: EVENT_TOP - 8,
      width: HIT_WIDTH,
      height: AXIS_Y - EVENT_TOP + 8,
    }),
  );
  switch (mark.kind) {
    case "heartbeat":
      g.append(svg("circle", { cx: mark.x, cy: HEARTBEAT_Y, r: 3 }));
      break;
    case "cut":
      g.append(
        svg("line", { x1: mark.x, x2: mark.x, y1: EVENT_TOP - 10, y2: AXIS_Y + 8 }),
        svg(
          "text",
          { ...labelAt(mark.x), y: EVENT_TOP - 2, class: "mark-label" },
          mark.source === "drop" ? "✂ dropped" : mark.source === "hang" ? "⏸ hang" : "✕ aborted",
        ),
      );
      break;
    case "done":
    case "end":
      g.append(svg("rect", { x: mark.x - 3, y: AXIS_Y - 9, width: 6, height: 6 }));
      if (!unlabelled)
        g.append(
          svg(
            "text",
            { ...labelAt(mark.x), y: AXIS_Y - 12, class: "mark-label" },
            mark.kind === "done" ? "[DONE]" : "end",
          ),
        );
      break;
    default:
      g.append(
        svg("line", { x1: mark.x, x2: mark.x, y1: mark.kind === "event" ? EVENT_TOP + 14 : EVENT_TOP, y2: AXIS_Y }),
      );
  }
  return g;
}
