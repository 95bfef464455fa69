/* Inline SVG pictures of a McNemar report: the 2x2 table, the null distribution of the
   discordant split and the confidence intervals on one axis. Every number drawn comes from
   the API's report, and every number written is a text of the server (the response's
   "display" object: the counts, the tallest bar, the distribution's ticks); nothing
   statistical is computed here. The interval axis's ticks are the picture's own: their
   labels are written exactly from whole numbers (niceStep, tickLabel).

   Labels are laid out by measuring their text (in the page's own font) before drawing, so
   that none overlaps another or leaves the picture, whatever the counts and the names: long
   names wrap or end in an ellipsis (the full names are in the text around the pictures),
   wide counts get a smaller font or a second line, and tick labels are thinned out. The
   functions that lay out take a measurer ({ width(text, size, weight) }), so that they can
   be tried without a browser. */

import { shown } from "./text.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLORS = {
  aSide: "#1f5fbf",
  bSide: "#b45309",
  tail: "#c0392b",
  bar: "#aab4c2",
  ink: "#1c2430",
  muted: "#56606e",
  line: "#c5cdd8",
  cell: "#f1f4f8",
};
/* Horizontal room kept between two labels, and between a label and the picture's edge. */
const GAP = 6;
const EDGE = 2;
/* Beyond this many decimals a tick label is written as a power of ten (the report's rule
   for a quantity in points). */
const MAX_DECIMALS = 10;

function el(tag, attrs, children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  for (const child of children || []) {
    if (child === null || child === undefined) continue;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function text(x, y, content, attrs) {
  return el("text", Object.assign({ x, y }, attrs || {}), [String(content)]);
}

/* One text element of several lines (tspans), the first on baseline y. */
function textLines(x, y, lines, lineHeight, attrs) {
  const node = el("text", Object.assign({ x, y }, attrs || {}), []);
  lines.forEach((line, i) => {
    node.appendChild(el("tspan", { x, dy: i === 0 ? 0 : lineHeight }, [line]));
  });
  return node;
}

function svgRoot(width, height, label) {
  const titleId = "t" + Math.random().toString(36).slice(2);
  return el("svg", {
    viewBox: "0 0 " + width + " " + height,
    width,
    height,
    role: "img",
    "aria-labelledby": titleId,
  }, [el("title", { id: titleId }, [label])]);
}

/* The width a picture is drawn at: its container's, within [300, 900]. */
export function chartWidth(clientWidth, fallback) {
  const w = Math.floor(clientWidth || 0);
  return Math.max(300, Math.min(w || fallback, 900));
}

/* A count as the server wrote it, "?" for one not given. */
function countText(counts, key) {
  const s = counts && counts[key];
  return s === null || s === undefined ? "?" : String(s);
}

/* ------------------------------------------------------------------ measuring text */

/* Text widths in the font of the container (the pictures' text inherits the page's). */
export function measurer(container) {
  const family = getComputedStyle(container).fontFamily || "sans-serif";
  const ctx = document.createElement("canvas").getContext("2d");
  return {
    width(s, size, weight) {
      ctx.font = (weight || 400) + " " + size + "px " + family;
      return ctx.measureText(String(s)).width;
    },
  };
}

/* The longest prefix of s that, followed by tail, fits in max. */
export function longestPrefix(m, s, tail, max, size, weight) {
  let lo = 0, hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (m.width(s.slice(0, mid) + tail, size, weight) <= max) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/* s itself when it fits in max, else its start with an ellipsis. */
export function fit(m, s, max, size, weight) {
  s = String(s);
  if (m.width(s, size, weight) <= max) return s;
  const n = longestPrefix(m, s, "…", max, size, weight);
  return s.slice(0, n).trimEnd() + "…";
}

/* prefix + name + suffix, shortening only the name (with an ellipsis) to fit in max. */
export function fitName(m, prefix, name, suffix, max, size, weight) {
  const whole = prefix + name + suffix;
  if (m.width(whole, size, weight) <= max) return whole;
  const room = max - m.width(prefix + suffix, size, weight);
  if (room > m.width("…", size, weight)) {
    const n = longestPrefix(m, name, "…", room, size, weight);
    if (n > 0) return prefix + name.slice(0, n).trimEnd() + "…" + suffix;
  }
  return fit(m, whole, max, size, weight);
}

/* Greedy word wrap into lines no wider than max; a word wider than a line is broken;
   beyond maxLines the last line ends in an ellipsis. */
export function wrap(m, s, max, size, weight, maxLines) {
  const words = String(s).split(/\s+/).filter(Boolean);
  const lines = [];
  let current = "";
  for (let word of words) {
    const joined = current ? current + " " + word : word;
    if (m.width(joined, size, weight) <= max) { current = joined; continue; }
    if (current && m.width(word, size, weight) > max) {
      // A word longer than a line starts on the current one rather than leave it short.
      const n = longestPrefix(m, word, "", max - m.width(current + " ", size, weight), size, weight);
      if (n > 0) { lines.push(current + " " + word.slice(0, n)); word = word.slice(n); current = ""; }
    }
    if (current) lines.push(current);
    while (m.width(word, size, weight) > max) {
      const n = Math.max(1, longestPrefix(m, word, "", max, size, weight));
      lines.push(word.slice(0, n));
      word = word.slice(n);
    }
    current = word;
  }
  if (current) lines.push(current);
  if (lines.length > maxLines) {
    const rest = lines.slice(maxLines - 1).join(" ");
    lines.length = maxLines - 1;
    lines.push(fit(m, rest, max, size, weight));
  }
  return lines.length ? lines : [""];
}

/* The horizontal span of a label drawn at x with this anchor. */
export function span(x, width, anchor) {
  if (anchor === "end") return [x - width, x];
  if (anchor === "middle") return [x - width / 2, x + width / 2];
  return [x, x + width];
}

/* x moved just enough that the label's span lies within [lo, hi]. */
export function clampX(x, width, anchor, lo, hi) {
  const [a, b] = span(x, width, anchor);
  if (a < lo) return x + (lo - a);
  if (b > hi) return x - (b - hi);
  return x;
}

export function overlaps(s, taken) {
  return taken.some(([a, b]) => s[0] < b + GAP && a < s[1] + GAP);
}

/* A count written with thousands commas cut in two lines at a comma ("1,234,", "567,890"). */
export function splitCount(s) {
  const groups = s.split(",");
  const k = Math.ceil(groups.length / 2);
  return groups.length > 1 ? [groups.slice(0, k).join(",") + ",", groups.slice(k).join(",")] : [s];
}

/* ------------------------------------------------------------------ 2x2 table */

/* The 2x2 table: rows are A right / A wrong, columns B right / B wrong. Short names stand
   beside and above the cells; names too long for that are written out in a legend above
   the table (wrapped), and the table says A and B. counts: the cells as the server wrote
   them (display.counts). */
export function table2x2(container, table, names, counts) {
  const m = measurer(container);
  const W = chartWidth(container.clientWidth, 560);
  const narrow = W < 480;
  const nameA = names.a, nameB = names.b;
  const NAME = 12.5, NOTE = 11, SIDE = 12;
  const label = "Paired table: both right " + countText(counts, "a") + "; " + nameA + " right and " +
    nameB + " wrong " + countText(counts, "b") + "; " + nameA + " wrong and " + nameB + " right " +
    countText(counts, "c") + "; both wrong " + countText(counts, "d") + ".";

  const wideLeft = Math.min(140, Math.round(W * 0.27));
  const wideCell = Math.floor((W - wideLeft - 4) / 2);
  const inline = m.width(nameA, NAME, 600) <= wideLeft - 12 && m.width(nameB, NAME, 600) <= wideCell - 8;
  const left = inline ? wideLeft
    : Math.ceil(Math.max(m.width("A right", NAME, 600), m.width("A wrong", NAME, 600)) + 14);
  const cellW = Math.floor((W - left - 4) / 2);

  /* Legend lines (only when the names do not fit beside the cells). */
  const parts = [];
  let y = 0;
  if (!inline) {
    const legendW = W - 8;
    for (const [tag, name, color] of [["A", nameA, COLORS.aSide], ["B", nameB, COLORS.bSide]]) {
      const lines = wrap(m, tag + " = " + name, legendW, NAME, 600, 3);
      parts.push(textLines(4, y + 14, lines, 16, { "font-size": NAME, "font-weight": 600, fill: color, "data-legend": tag }));
      y += 16 * lines.length + 2;
    }
    y += 6;
  }

  /* Column headings. */
  for (let col = 0; col < 2; col++) {
    const cx = left + (col + 0.5) * cellW;
    const word = col === 0 ? "right" : "wrong";
    if (inline) {
      parts.push(text(cx, y + 16, nameB, { "text-anchor": "middle", "font-size": NAME, "font-weight": 600 }));
      parts.push(text(cx, y + 32, word, { "text-anchor": "middle", "font-size": NAME }));
    } else {
      parts.push(text(cx, y + 16, "B " + word, { "text-anchor": "middle", "font-size": NAME, "font-weight": 600 }));
    }
  }
  const top = y + (inline ? 48 : 30);

  /* The counts: the largest font that fits the cell, on two lines if need be. */
  const cells = [
    [{ key: "a", value: table.a, note: "both right" }, { key: "b", value: table.b, note: ["only ", nameA, " right"] }],
    [{ key: "c", value: table.c, note: ["only ", nameB, " right"] }, { key: "d", value: table.d, note: "both wrong" }],
  ];
  const base = narrow ? 21 : 24;
  const room = cellW - 14;
  let countSize = base, twoLines = false;
  const shownCounts = ["a", "b", "c", "d"].map((key) => countText(counts, key));
  const widest = (size) => Math.max(...shownCounts.map((s) => m.width(s, size, 700)));
  while (countSize > 12 && widest(countSize) > room) countSize -= 1;
  if (widest(countSize) > room) {
    twoLines = true;
    countSize = base;
    const widestSplit = (size) => Math.max(...shownCounts.map((s) => Math.max(...splitCount(s).map((p) => m.width(p, size, 700)))));
    while (countSize > 10 && widestSplit(countSize) > room) countSize -= 1;
  }
  const lineH = Math.ceil(countSize * 1.25);
  const cellH = (narrow ? 70 : 76) + (twoLines ? lineH : 0);

  for (let r = 0; r < 2; r++) {
    const yr = top + r * cellH;
    const word = r === 0 ? "right" : "wrong";
    if (inline) {
      parts.push(text(left - 8, yr + cellH / 2 - 3, nameA, { "text-anchor": "end", "font-size": NAME, "font-weight": 600 }));
      parts.push(text(left - 8, yr + cellH / 2 + 13, word, { "text-anchor": "end", "font-size": NAME }));
    } else {
      parts.push(text(left - 8, yr + cellH / 2 + 4, "A " + word, { "text-anchor": "end", "font-size": NAME, "font-weight": 600 }));
    }
    for (let col = 0; col < 2; col++) {
      const x = left + col * cellW;
      const cell = cells[r][col];
      const discordant = cell.key === "b" || cell.key === "c";
      const color = cell.key === "b" ? COLORS.aSide : cell.key === "c" ? COLORS.bSide : null;
      parts.push(el("rect", {
        x: x + 2, y: yr + 2, width: cellW - 4, height: cellH - 4, rx: 6,
        fill: discordant ? color : COLORS.cell,
        "fill-opacity": discordant ? 0.14 : 1,
        stroke: discordant ? color : COLORS.line,
        "stroke-width": discordant ? 2.5 : 1,
        "data-cell": cell.key,
      }));
      const value = countText(counts, cell.key);
      // Only the counts too wide for the cell take two lines; each block is centred on
      // the same height.
      const lines = twoLines && m.width(value, countSize, 700) > room ? splitCount(value) : [value];
      parts.push(textLines(x + cellW / 2, yr + (narrow ? 32 : 36) + (twoLines ? lineH / 2 : 0) - (lines.length - 1) * lineH / 2, lines, lineH, {
        "text-anchor": "middle", "font-size": countSize, "font-weight": 700,
        fill: discordant ? color : COLORS.ink, "data-count": cell.key,
      }));
      let note;
      if (cell.value === null || cell.value === undefined) note = fit(m, cell.key + ": not given", room, NOTE);
      else if (typeof cell.note === "string") note = fit(m, cell.key + ": " + cell.note, room, NOTE);
      else if (inline) note = fitName(m, cell.key + ": " + cell.note[0], cell.note[1], cell.note[2], room, NOTE);
      else note = fit(m, cell.key + ": only " + (cell.key === "b" ? "A" : "B") + " right", room, NOTE);
      parts.push(text(x + cellW / 2, yr + cellH - 16, note, {
        "text-anchor": "middle", "font-size": NOTE, fill: COLORS.muted,
      }));
    }
  }

  /* The discordant split as one bar: the only part of the table the test looks at. */
  const D = (table.b || 0) + (table.c || 0);
  const barW = W - 8;
  const barTop = top + 2 * cellH + 34;
  const longHeading = "The " + countText(counts, "discordant") + " disagreements (the only items the test uses):";
  const shortHeading = "The " + countText(counts, "discordant") + " disagreements:";
  const heading = !narrow && m.width(longHeading, NAME, 600) <= barW ? longHeading : fit(m, shortHeading, barW, NAME, 600);
  parts.push(text(4, barTop - 8, heading, { "font-size": NAME, "font-weight": 600 }));
  let H = barTop + 58;
  if (D > 0) {
    const wb = barW * table.b / D;
    parts.push(el("rect", { x: 4, y: barTop, width: Math.max(wb, 0), height: 22, fill: COLORS.aSide }));
    parts.push(el("rect", { x: 4 + wb, y: barTop, width: Math.max(barW - wb, 0), height: 22, fill: COLORS.bSide }));
    const sideName = (tag, name) => (inline ? name : tag);
    const bHead = "b = " + countText(counts, "b") + " favour ";
    const cHead = "c = " + countText(counts, "c") + " favour ";
    const oneLine = m.width(bHead + sideName("A", nameA), SIDE, 600) + m.width(cHead + sideName("B", nameB), SIDE, 600) + 3 * GAP <= barW;
    const bText = fitName(m, bHead, sideName("A", nameA), "", barW, SIDE, 600);
    const cText = fitName(m, cHead, sideName("B", nameB), "", barW, SIDE, 600);
    parts.push(text(4, barTop + 40, bText, { "font-size": SIDE, fill: COLORS.aSide, "font-weight": 600, "data-side": "b" }));
    parts.push(text(4 + barW, barTop + (oneLine ? 40 : 57), cText, { "font-size": SIDE, fill: COLORS.bSide, "font-weight": 600, "text-anchor": "end", "data-side": "c" }));
    if (!oneLine) H += 17;
  } else {
    parts.push(el("rect", { x: 4, y: barTop, width: barW, height: 22, fill: COLORS.cell, stroke: COLORS.line }));
    parts.push(text(4 + barW / 2, barTop + 15, fit(m, "none: the systems agree on every item", barW - 8, 12), { "font-size": 12, "text-anchor": "middle", fill: COLORS.muted }));
  }
  const svg = svgRoot(W, H, label);
  for (const part of parts) svg.appendChild(part);
  container.replaceChildren(svg);
}

/* ------------------------------------------------------------------ null distribution */

/* Which values of b are at least as extreme as the observed one (for shading). */
export function inTail(k, b, c, alternative) {
  if (alternative === "greater") return k >= b;
  if (alternative === "less") return k <= b;
  const lo = Math.min(b, c), hi = Math.max(b, c);
  return k <= lo || k >= hi;
}

/* The spans of k to shade, as [from, to] pairs. */
export function tailSpans(b, c, alternative, kMin, kMax) {
  if (alternative === "greater") return [[b, kMax]];
  if (alternative === "less") return [[kMin, b]];
  return [[kMin, Math.min(b, c)], [Math.max(b, c), kMax]];
}

/* Bars of Bin(D, 1/2) for b, with the observed split and the tails marked. texts: the
   server's texts of the counts (display.counts) and of the picture (display.distribution:
   its tallest bar and its x axis's ticks). */
export function nullDistribution(container, dist, table, alternative, names, texts) {
  const m = measurer(container);
  const W = chartWidth(container.clientWidth, 600);
  const TICK = 10.5, CAPTION = 11.5, AXIS = 11.5;
  const counts = texts.counts || {};
  const labels = texts.distribution || { peak: null, ticks: [] };
  const D = dist.discordant;
  const b = table.b, c = table.c;
  const ks = dist.k, pmf = dist.pmf, step = dist.step || 1;
  const kMin = ks[0], kMax = ks[ks.length - 1];
  const label = "Null distribution of b if the two systems were equally good: Binomial(" + countText(counts, "discordant") +
    ", 1/2). The observed b is " + countText(counts, "b") + "; the shaded tails are the splits at least as extreme.";
  const yMax = Math.max(...pmf, 1e-300);
  const yMaxText = shown(labels.peak);
  /* Left margin: the rotated axis title (about 16 px) and the widest y label. */
  const padL = Math.max(46, Math.ceil(24 + Math.max(m.width(yMaxText, TICK), m.width("0", TICK)) + 6));
  const padR = 14, padT = 30, plotH = 162;

  /* The x-axis title, on up to two lines. */
  const plotW = W - padL - padR;
  const titleW = W - 2 * EDGE - 4;
  const total = countText(counts, "discordant");
  const long = "k = disagreements won by " + names.a + " (A right, B wrong), out of D = " + total;
  let xTitle = wrap(m, long, titleW, AXIS, 400, 1);
  if (xTitle[0] !== long) {
    xTitle = wrap(m, "k = disagreements won by " + names.a + " (of " + total + ")", titleW, AXIS, 400, 2);
    if (xTitle[xTitle.length - 1].endsWith("…")) {
      // The name was cut: keep the count whole and shorten the name instead.
      xTitle = [fitName(m, "k = disagreements won by ", names.a, "", titleW, AXIS),
        fit(m, "(of D = " + total + ")", titleW, AXIS)];
    }
  }
  const padB = 40 + 14 * xTitle.length;
  const H = padT + plotH + padB;
  const svg = svgRoot(W, H, label);
  const kRange = Math.max(kMax - kMin + step, 1);
  const x = (k) => padL + (k - kMin + step / 2) / kRange * plotW;
  const y = (p) => padT + plotH - (p / yMax) * plotH;
  const barW = Math.max(1, plotW / kRange * step * 0.86);

  svg.appendChild(el("line", { x1: padL, y1: padT + plotH, x2: padL + plotW, y2: padT + plotH, stroke: COLORS.muted }));
  svg.appendChild(el("line", { x1: padL, y1: padT, x2: padL, y2: padT + plotH, stroke: COLORS.line }));
  svg.appendChild(text(padL - 6, padT + 6, yMaxText, { "text-anchor": "end", "font-size": TICK, fill: COLORS.muted }));
  svg.appendChild(text(padL - 6, padT + plotH, "0", { "text-anchor": "end", "font-size": TICK, fill: COLORS.muted }));
  svg.appendChild(text(14, padT + plotH / 2, "P(b = k)", { "font-size": 11, fill: COLORS.muted, transform: "rotate(-90 14 " + (padT + plotH / 2) + ")", "text-anchor": "middle" }));

  /* Shade the tail regions behind the bars: far-out bars are too short to see. */
  if (D > 0) {
    for (const [from, to] of tailSpans(b, c, alternative, kMin, kMax)) {
      const lo = Math.max(from, kMin), hi = Math.min(to, kMax);
      if (hi < lo) continue;
      const x0 = Math.max(padL, x(lo) - barW / 2 - 1), x1 = Math.min(padL + plotW, x(hi) + barW / 2 + 1);
      svg.appendChild(el("rect", { x: x0, y: padT, width: Math.max(x1 - x0, 1), height: plotH, fill: COLORS.tail, "fill-opacity": 0.1, class: "tail-band" }));
    }
  }
  const bars = el("g", {}, []);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    const tail = inTail(k, b, c, alternative);
    const top = y(pmf[i]);
    bars.appendChild(el("rect", {
      x: x(k) - barW / 2, y: top, width: barW, height: Math.max(padT + plotH - top, pmf[i] > 0 ? 0.6 : 0),
      fill: tail ? COLORS.tail : COLORS.bar, "fill-opacity": tail ? 0.85 : 1,
      "data-k": k, "data-tail": tail ? "1" : "0",
    }));
  }
  svg.appendChild(bars);

  /* x-axis ticks, in the server's order (the ends, then the centre), each only where its
     label has room. */
  const taken = [];
  for (const tick of labels.ticks || []) {
    const k = tick.k;
    if (k < kMin || k > kMax) continue;
    const s = String(tick.text);
    const w = m.width(s, TICK);
    const tx = clampX(x(k), w, "middle", EDGE, W - EDGE);
    const extent = span(tx, w, "middle");
    if (overlaps(extent, taken)) continue;
    taken.push(extent);
    svg.appendChild(el("line", { x1: x(k), y1: padT + plotH, x2: x(k), y2: padT + plotH + 4, stroke: COLORS.muted }));
    svg.appendChild(text(tx, padT + plotH + 16, s, { "text-anchor": "middle", "font-size": TICK, fill: COLORS.muted }));
  }
  svg.appendChild(textLines(W / 2, padT + plotH + 34, xTitle, 14, { "text-anchor": "middle", "font-size": AXIS, fill: COLORS.muted }));

  /* The observed b (and, two-sided, its mirror image c) as lines with captions in one row
     above the plot; a value outside the drawn range gets an arrow at that side. The
     mirror's caption is shortened, or left out, rather than collide with the observed one. */
  const captions = [];
  function marker(k, variants, dashed) {
    const off = k < kMin - step / 2 || k > kMax + step / 2;
    let xm, anchor;
    const lo = EDGE, hi = W - EDGE;
    if (off) {
      const right = k > kMax;
      const xe = right ? padL + plotW : padL;
      svg.appendChild(el("path", {
        d: right ? "M" + (xe - 14) + " " + (padT + 2) + " l14 6 l-14 6 z" : "M" + (xe + 14) + " " + (padT + 2) + " l-14 6 l14 6 z",
        fill: dashed ? COLORS.muted : COLORS.aSide,
      }));
      xm = xe;
      anchor = right ? "end" : "start";
      variants = variants.slice(0, -1).map((v) => v + " (off the chart)").concat(variants.slice(-1));
    } else {
      xm = x(k);
      svg.appendChild(el("line", {
        x1: xm, y1: padT - 6, x2: xm, y2: padT + plotH,
        stroke: dashed ? COLORS.muted : COLORS.aSide, "stroke-width": dashed ? 1.2 : 2,
        "stroke-dasharray": dashed ? "4 3" : null,
      }));
      anchor = xm > padL + plotW * 0.75 ? "end" : xm < padL + plotW * 0.25 ? "start" : "middle";
    }
    const weight = dashed ? 400 : 600;
    for (let i = 0; i < variants.length; i++) {
      const last = i === variants.length - 1;
      const s = last && !dashed ? fit(m, variants[i], hi - lo, CAPTION, weight) : variants[i];
      const w = m.width(s, CAPTION, weight);
      if (w > hi - lo) continue;
      const tx = clampX(xm, w, anchor, lo, hi);
      const extent = span(tx, w, anchor);
      if (overlaps(extent, captions)) continue;
      captions.push(extent);
      svg.appendChild(text(tx, padT - 12, s, {
        "text-anchor": anchor, "font-size": CAPTION, "font-weight": weight,
        fill: dashed ? COLORS.muted : COLORS.aSide, "data-marker": dashed ? "mirror" : "observed",
      }));
      return;
    }
  }
  if (D > 0) {
    marker(b, ["observed b = " + countText(counts, "b"), "b = " + countText(counts, "b"), "b"], false);
    if (alternative === "two-sided" && b !== c && Math.abs(b - c) > step) {
      marker(c, ["mirror " + countText(counts, "c"), "mirror", "c"], true);
    }
  }
  container.replaceChildren(svg);
}

/* ------------------------------------------------------------------ intervals */

/* A step of an axis as { units, exp }: units × 10^exp with units a whole number, so that
   the ticks' labels are written exactly from whole numbers (no rounding of a double). */
export function stepValue(step) {
  return step.exp >= 0 ? step.units * Math.pow(10, step.exp) : step.units / Math.pow(10, -step.exp);
}

/* The "nice" step of an axis from lo to hi: about a fifth of the range, rounded up to 1, 2,
   2.5 or 5 times a power of ten. */
export function niceStep(lo, hi) {
  const raw = (hi - lo) / 5;
  const e = Math.floor(Math.log10(raw));
  const candidates = [
    { units: 1, exp: e }, { units: 2, exp: e }, { units: 25, exp: e - 1 }, { units: 5, exp: e },
    { units: 1, exp: e + 1 },
  ];
  return candidates.find((s) => stepValue(s) >= raw) || candidates[candidates.length - 1];
}

/* The step twice as wide (for fewer ticks). */
export function doubled(step) {
  return { units: step.units * 2, exp: step.exp };
}

/* The label of the tick n × 10^exp (n a whole number) in points: "+2", "0", "-0.5"; beyond
   ten decimals as a power of ten ("+2.5 × 10⁻¹²"). */
export function tickLabel(n, exp) {
  if (n === 0) return "0";
  const sign = n > 0 ? "+" : "-";
  let digits = BigInt(Math.abs(n)).toString();
  let e = exp;
  while (digits.length > 1 && digits.endsWith("0")) { digits = digits.slice(0, -1); e += 1; }
  if (e >= 0) return sign + digits + "0".repeat(e);
  const places = -e;
  if (places > MAX_DECIMALS) {
    const mantissa = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    return sign + shown(mantissa + "e" + (e + digits.length - 1));
  }
  const padded = digits.padStart(places + 1, "0");
  return sign + padded.slice(0, padded.length - places) + "." + padded.slice(padded.length - places);
}

/* The ticks of a step within [lo, hi]: { value, label }. */
export function stepTicks(lo, hi, step) {
  const size = stepValue(step);
  const ticks = [];
  for (let i = Math.ceil(lo / size); i * size <= hi + size * 1e-9; i++) {
    ticks.push({ value: i === 0 ? 0 : i * size, label: tickLabel(i * step.units, step.exp) });
  }
  return ticks;
}

/* The range of the interval axis, in points: zero, every interval and the estimate, with
   a margin of 6% on each side. */
export function axisRange(rows, estimate) {
  let lo = 0, hi = 0;
  for (const r of rows) {
    if (r.low === null || r.high === null) continue;
    lo = Math.min(lo, r.low);
    hi = Math.max(hi, r.high);
  }
  if (estimate !== null && estimate !== undefined) { lo = Math.min(lo, estimate); hi = Math.max(hi, estimate); }
  if (hi - lo < 1e-12) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.06;
  return [lo - pad, hi + pad];
}

/* All difference intervals on one axis (in percentage points), zero marked. */
export function intervals(container, rows, estimate, recommended) {
  const m = measurer(container);
  const W = chartWidth(container.clientWidth, 600);
  const TICK = 10.5, LABEL = 11.5, AXIS = 11;
  const rowH = 26, padT = 32;
  const labelW = Math.min(170, Math.round(W * 0.36));
  const padR = 16;
  const label = "Confidence intervals for the difference in accuracy (A minus B), in percentage points, with zero marked.";
  const [lo, hi] = axisRange(rows, estimate);
  const plotL = labelW + 8, plotW = W - plotL - padR;
  const x = (v) => plotL + (v - lo) / (hi - lo) * plotW;
  const axisY = padT + rowH * Math.max(rows.length, 1) + 4;
  const titleText = [
    "accuracy(A) − accuracy(B), percentage points",
    "A − B, percentage points",
    "A − B, points",
  ].find((s) => m.width(s, AXIS) <= W - 2 * EDGE) || fit(m, "A − B, points", W - 2 * EDGE, AXIS);
  const H = axisY + 38;
  const svg = svgRoot(W, H, label);

  /* Ticks at "nice" steps in points, spaced out until no two labels touch. */
  let step = niceStep(lo, hi);
  let ticks = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    ticks = [];
    const taken = [];
    let ok = true;
    for (const tick of stepTicks(lo, hi, step)) {
      const w = m.width(tick.label, TICK);
      const tx = clampX(x(tick.value), w, "middle", EDGE, W - EDGE);
      const extent = span(tx, w, "middle");
      if (overlaps(extent, taken)) { ok = false; break; }
      taken.push(extent);
      ticks.push([tick.value, tx, tick.label]);
    }
    if (ok) break;
    step = doubled(step);
  }
  for (const [v, tx, s] of ticks) {
    svg.appendChild(el("line", { x1: x(v), y1: padT - 4, x2: x(v), y2: axisY, stroke: "#e5e9ef" }));
    svg.appendChild(text(tx, axisY + 16, s, { "text-anchor": "middle", "font-size": TICK, fill: COLORS.muted }));
  }
  svg.appendChild(el("line", { x1: plotL, y1: axisY, x2: plotL + plotW, y2: axisY, stroke: COLORS.muted }));
  svg.appendChild(el("line", { x1: x(0), y1: padT - 12, x2: x(0), y2: axisY, stroke: COLORS.ink, "stroke-width": 1.5 }));
  const zero = "0 = no difference";
  const zeroAnchor = x(0) > W - 90 ? "end" : x(0) < plotL + 60 ? "start" : "middle";
  const zw = m.width(zero, 11);
  svg.appendChild(text(clampX(x(0), zw, zeroAnchor, EDGE, W - EDGE), padT - 16, zero, { "text-anchor": zeroAnchor, "font-size": 11, fill: COLORS.ink }));
  svg.appendChild(text(clampX(plotL + plotW / 2, m.width(titleText, AXIS), "middle", EDGE, W - EDGE), H - 6, titleText, { "text-anchor": "middle", "font-size": AXIS, fill: COLORS.muted }));

  rows.forEach((r, i) => {
    const yc = padT + rowH * i + rowH / 2;
    const rec = r.key === recommended;
    const weight = rec ? 700 : 400;
    svg.appendChild(text(labelW, yc + 4, fit(m, r.short || r.label, labelW - EDGE, LABEL, weight), { "text-anchor": "end", "font-size": LABEL, "font-weight": weight }));
    if (r.low === null || r.high === null) {
      svg.appendChild(text(plotL + 4, yc + 4, fit(m, "not available", plotW - 4, 11), { "font-size": 11, fill: COLORS.muted }));
      return;
    }
    const color = rec ? COLORS.aSide : COLORS.muted;
    svg.appendChild(el("line", { x1: x(r.low), y1: yc, x2: x(r.high), y2: yc, stroke: color, "stroke-width": rec ? 4 : 2.5, "stroke-linecap": "round", "data-method": r.key }));
    svg.appendChild(el("line", { x1: x(r.low), y1: yc - 6, x2: x(r.low), y2: yc + 6, stroke: color, "stroke-width": 1.5 }));
    svg.appendChild(el("line", { x1: x(r.high), y1: yc - 6, x2: x(r.high), y2: yc + 6, stroke: color, "stroke-width": 1.5 }));
    if (estimate !== null && estimate !== undefined) {
      svg.appendChild(el("circle", { cx: x(estimate), cy: yc, r: rec ? 4.5 : 3.5, fill: COLORS.ink }));
    }
  });
  if (rows.length === 0) {
    svg.appendChild(text(plotL, padT + 14, "no intervals", { "font-size": 12, fill: COLORS.muted }));
  }
  container.replaceChildren(svg);
}
