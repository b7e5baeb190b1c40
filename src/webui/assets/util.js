// Small helpers every page uses: building DOM nodes (text only, never HTML from data), Slurm's
// host lists and numbers, time formats, and SVG charts.

// el("td", {class: "num", onclick: f}, "text", child, ...): an element with attributes, event
// handlers (on...) and children (strings become text nodes; null/false are skipped).
export function el(tag, attrs, ...children) {
  const svg = ["svg", "rect", "path", "line", "text", "g", "title", "polyline"].includes(tag);
  const node = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag)
                   : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.assign(node.style, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

// Replaces node's children by `children` (as el() takes them: arrays flattened, null skipped).
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// The value of slurmrestd's {set, infinite, number} struct (or a plain number); null when unset.
export function num(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value;
  if (value.infinite) return Infinity;
  return value.set ? value.number : null;
}

// "demo-a4-[0-1,3],login-0" -> ["demo-a4-0", "demo-a4-1", "demo-a4-3", "login-0"].
export function expandHostlist(text) {
  const names = [];
  if (!text) return names;
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "[") depth++;
    else if (text[i] === "]") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  for (const part of parts) {
    const m = part.match(/^([^[]*)\[([^\]]+)\](.*)$/);
    if (!m) {
      if (part) names.push(part);
      continue;
    }
    for (const range of m[2].split(",")) {
      const [lo, hi] = range.split("-");
      const width = lo.length;
      for (let n = Number(lo); n <= Number(hi ?? lo); n++) {
        names.push(m[1] + String(n).padStart(width, "0") + m[3]);
      }
    }
  }
  return names;
}

// "gpu:b200:3(IDX:0-1,5)" -> {count: 3, idx: [0, 1, 5]}; "gpu:b200:8" -> {count: 8, idx: []}.
export function parseGres(text) {
  const result = {count: 0, idx: []};
  for (const item of (text || "").split(/,(?![^(]*\))/)) {
    const m = item.match(/^gpu(?::[^:(]+)?:(\d+)(?:\(IDX:([^)]*)\))?/);
    if (!m) continue;
    result.count += Number(m[1]);
    for (const range of (m[2] || "").split(",").filter(Boolean)) {
      const [lo, hi] = range.split("-").map(Number);
      for (let n = lo; n <= (hi ?? lo); n++) result.idx.push(n);
    }
  }
  return result;
}

// "1-02:03:04" as Slurm prints durations, from seconds.
export function duration(seconds) {
  if (seconds === null || seconds === undefined || seconds < 0) return "";
  if (seconds === Infinity) return "UNLIMITED";
  const d = Math.floor(seconds / 86400), h = Math.floor(seconds / 3600) % 24;
  const m = Math.floor(seconds / 60) % 60, s = Math.floor(seconds) % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (d > 0) return `${d}-${two(h)}:${two(m)}:${two(s)}`;
  if (h > 0) return `${h}:${two(m)}:${two(s)}`;
  return `${m}:${two(s)}`;
}

// A Unix time as the browser's local "2026-12-07 14:03:05"; "" for 0/unset.
export function when(seconds) {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ` +
         `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

// Megabytes as "1.5G" / "512M".
export function megabytes(mb) {
  if (mb >= 1024 * 1024) return (mb / 1024 / 1024).toFixed(1) + "T";
  if (mb >= 1024) return (mb / 1024).toFixed(1) + "G";
  return Math.round(mb) + "M";
}

// A stable colour for a job id, so that the same job has the same colour on every node.
export function jobColour(id) {
  const hue = (Number(id) * 137.508) % 360;
  return `hsl(${hue.toFixed(0)}, 55%, 55%)`;
}

// A bar showing used/total, with its words.
export function meter(label, used, total, format = (n) => String(n)) {
  const share = total > 0 ? Math.min(1, used / total) : 0;
  return el("div", {class: "meter"},
            el("div", {class: "meter-label"}, label, el("span", {class: "meter-figure"},
                                                         `${format(used)} / ${format(total)}`)),
            el("div", {class: "meter-track"},
               el("div", {class: "meter-fill", style: {width: (share * 100).toFixed(1) + "%"}})));
}

// A line chart of series [{name, points: [[t, v], ...], colour}] over [t0, t1], values from 0.
export function lineChart(series, t0, t1, {height = 160, unit = "", max = null} = {}) {
  const width = 640, left = 44, bottom = 20, top = 8;
  let top_value = max ?? 0;
  for (const s of series) for (const [, v] of s.points) top_value = Math.max(top_value, v);
  if (top_value <= 0) top_value = 1;
  const x = (t) => left + (width - left - 4) * (t - t0) / Math.max(1, t1 - t0);
  const y = (v) => top + (height - top - bottom) * (1 - v / top_value);
  const svg = el("svg", {viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img"});
  for (const frac of [0, 0.5, 1]) {
    const v = top_value * frac;
    svg.append(el("line", {x1: left, x2: width - 4, y1: y(v), y2: y(v), class: "grid"}));
    svg.append(el("text", {x: left - 4, y: y(v) + 4, class: "axis", "text-anchor": "end"},
                  (Number.isInteger(v) ? v : v.toFixed(1)) + unit));
  }
  for (const [t, anchor] of [[t0, "start"], [(t0 + t1) / 2, "middle"], [t1, "end"]]) {
    const d = new Date(t * 1000);
    svg.append(el("text", {x: x(t), y: height - 4, class: "axis", "text-anchor": anchor},
                  `${String(d.getHours()).padStart(2, "0")}:` +
                      `${String(d.getMinutes()).padStart(2, "0")}`));
  }
  for (const s of series) {
    const points = s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    const line = el("polyline", {points, fill: "none", stroke: s.colour, "stroke-width": 2});
    line.append(el("title", {}, s.name));
    svg.append(line);
  }
  const legend = el("div", {class: "legend"},
                    series.map((s) => el("span", {},
                                         el("i", {style: {background: s.colour}}), s.name)));
  return el("div", {class: "chart-box"}, svg, legend);
}

// Horizontal bars [{label, value}] (largest first), values formatted by `format`.
export function barChart(rows, format = (v) => String(v)) {
  const most = Math.max(1e-9, ...rows.map((r) => r.value));
  return el("table", {class: "bars"},
            rows.map((r) => el("tr", {},
                               el("th", {}, r.label),
                               el("td", {class: "bar-cell"},
                                  el("div", {class: "bar",
                                             style: {width: (100 * r.value / most).toFixed(1) + "%",
                                                     background: r.colour || ""}})),
                               el("td", {class: "num"}, format(r.value)))));
}
