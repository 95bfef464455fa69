/* Inline SVG pictures of a McNemar report: the 2x2 table, the null distribution of the
   discordant split and the confidence intervals on one axis. Every number drawn comes from
   the API's report; nothing statistical is computed here. */
(function () {
  "use strict";

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
    return el("text", Object.assign({ x: x, y: y }, attrs || {}), [String(content)]);
  }

  function svgRoot(width, height, label) {
    const titleId = "t" + Math.random().toString(36).slice(2);
    return el("svg", {
      viewBox: "0 0 " + width + " " + height,
      width: width,
      height: height,
      role: "img",
      "aria-labelledby": titleId,
    }, [el("title", { id: titleId }, [label])]);
  }

  function widthOf(container, fallback) {
    const w = Math.floor(container.clientWidth || 0);
    return Math.max(300, Math.min(w || fallback, 900));
  }

  function fmtCount(n) {
    return n === null || n === undefined ? "?" : Number(n).toLocaleString("en-US");
  }

  function clip(s, max) {
    s = String(s);
    return s.length > max ? s.slice(0, max - 1) + "…" : s;
  }

  /* The 2x2 table: rows are A right / A wrong, columns B right / B wrong. */
  function table2x2(container, table, names) {
    const W = widthOf(container, 560);
    const narrow = W < 480;
    const nameA = names.a, nameB = names.b;
    const left = Math.min(140, Math.round(W * 0.27));
    const top = 48;
    const cellW = Math.floor((W - left - 4) / 2);
    const cellH = narrow ? 70 : 76;
    const label = "Paired table: both right " + fmtCount(table.a) + "; " + nameA + " right and " +
      nameB + " wrong " + fmtCount(table.b) + "; " + nameA + " wrong and " + nameB + " right " +
      fmtCount(table.c) + "; both wrong " + fmtCount(table.d) + ".";
    const barTop = top + 2 * cellH + 34;
    const H = barTop + 58;
    const svg = svgRoot(W, H, label);
    const colChars = Math.max(6, Math.floor(cellW / 7.5));
    const noteChars = Math.max(8, Math.floor(cellW / 6.4));
    const rowChars = Math.max(5, Math.floor((left - 10) / 7.2));
    for (let col = 0; col < 2; col++) {
      const cx = left + (col + 0.5) * cellW;
      svg.appendChild(text(cx, 16, clip(nameB, colChars), { "text-anchor": "middle", "font-size": 12.5, "font-weight": 600 }));
      svg.appendChild(text(cx, 32, col === 0 ? "right" : "wrong", { "text-anchor": "middle", "font-size": 12.5 }));
    }
    const cells = [
      [{ key: "a", value: table.a, note: "both right" }, { key: "b", value: table.b, note: "only " + nameA + " right" }],
      [{ key: "c", value: table.c, note: "only " + nameB + " right" }, { key: "d", value: table.d, note: "both wrong" }],
    ];
    for (let r = 0; r < 2; r++) {
      const y = top + r * cellH;
      svg.appendChild(text(left - 8, y + cellH / 2 - 3, clip(nameA, rowChars), { "text-anchor": "end", "font-size": 12.5, "font-weight": 600 }));
      svg.appendChild(text(left - 8, y + cellH / 2 + 13, r === 0 ? "right" : "wrong", { "text-anchor": "end", "font-size": 12.5 }));
      for (let col = 0; col < 2; col++) {
        const x = left + col * cellW;
        const cell = cells[r][col];
        const discordant = cell.key === "b" || cell.key === "c";
        const color = cell.key === "b" ? COLORS.aSide : cell.key === "c" ? COLORS.bSide : null;
        svg.appendChild(el("rect", {
          x: x + 2, y: y + 2, width: cellW - 4, height: cellH - 4, rx: 6,
          fill: discordant ? color : COLORS.cell,
          "fill-opacity": discordant ? 0.14 : 1,
          stroke: discordant ? color : COLORS.line,
          "stroke-width": discordant ? 2.5 : 1,
          "data-cell": cell.key,
        }));
        svg.appendChild(text(x + cellW / 2, y + (narrow ? 32 : 36), fmtCount(cell.value), {
          "text-anchor": "middle", "font-size": narrow ? 21 : 24, "font-weight": 700,
          fill: discordant ? color : COLORS.ink,
        }));
        const note = cell.value === null || cell.value === undefined ? "not given" : cell.note;
        svg.appendChild(text(x + cellW / 2, y + cellH - 16, clip(cell.key + ": " + note, noteChars), {
          "text-anchor": "middle", "font-size": 11, fill: COLORS.muted,
        }));
      }
    }

    /* The discordant split as one bar: the only part of the table the test looks at. */
    const D = (table.b || 0) + (table.c || 0);
    const barW = W - 8;
    const heading = narrow ? "The " + fmtCount(D) + " disagreements:" : "The " + fmtCount(D) + " disagreements (the only items the test uses):";
    svg.appendChild(text(4, barTop - 8, heading, { "font-size": 12.5, "font-weight": 600 }));
    const sideChars = Math.max(6, Math.floor(W / 2 / 7) - 12);
    if (D > 0) {
      const wb = barW * table.b / D;
      svg.appendChild(el("rect", { x: 4, y: barTop, width: Math.max(wb, 0), height: 22, fill: COLORS.aSide }));
      svg.appendChild(el("rect", { x: 4 + wb, y: barTop, width: Math.max(barW - wb, 0), height: 22, fill: COLORS.bSide }));
      svg.appendChild(text(4, barTop + 40, "b = " + fmtCount(table.b) + " favour " + clip(nameA, sideChars), { "font-size": 12, fill: COLORS.aSide, "font-weight": 600 }));
      svg.appendChild(text(4 + barW, barTop + 40, "c = " + fmtCount(table.c) + " favour " + clip(nameB, sideChars), { "font-size": 12, fill: COLORS.bSide, "font-weight": 600, "text-anchor": "end" }));
    } else {
      svg.appendChild(el("rect", { x: 4, y: barTop, width: barW, height: 22, fill: COLORS.cell, stroke: COLORS.line }));
      svg.appendChild(text(4 + barW / 2, barTop + 15, "none: the systems agree on every item", { "font-size": 12, "text-anchor": "middle", fill: COLORS.muted }));
    }
    container.replaceChildren(svg);
  }

  /* Which values of b are at least as extreme as the observed one (for shading). */
  function inTail(k, b, c, alternative) {
    if (alternative === "greater") return k >= b;
    if (alternative === "less") return k <= b;
    const lo = Math.min(b, c), hi = Math.max(b, c);
    return k <= lo || k >= hi;
  }

  /* Bars of Bin(D, 1/2) for b, with the observed split and the tails marked. */
  function nullDistribution(container, dist, table, alternative, names) {
    const W = widthOf(container, 600);
    const H = 250;
    const padL = 46, padR = 14, padT = 30, padB = 58;
    const D = dist.discordant;
    const b = table.b, c = table.c;
    const ks = dist.k, pmf = dist.pmf, step = dist.step || 1;
    const kMin = ks[0], kMax = ks[ks.length - 1];
    const label = "Null distribution of b if the two systems were equally good: Binomial(" + D +
      ", 1/2). The observed b is " + b + "; the shaded tails are the splits at least as extreme.";
    const svg = svgRoot(W, H, label);
    const plotW = W - padL - padR, plotH = H - padT - padB;
    const span = Math.max(kMax - kMin + step, 1);
    const x = (k) => padL + (k - kMin + step / 2) / span * plotW;
    const yMax = Math.max.apply(null, pmf.concat([1e-300]));
    const y = (p) => padT + plotH - (p / yMax) * plotH;
    const barW = Math.max(1, plotW / span * step * 0.86);

    svg.appendChild(el("line", { x1: padL, y1: padT + plotH, x2: padL + plotW, y2: padT + plotH, stroke: COLORS.muted }));
    svg.appendChild(el("line", { x1: padL, y1: padT, x2: padL, y2: padT + plotH, stroke: COLORS.line }));
    svg.appendChild(text(padL - 6, padT + 4, yMax.toPrecision(2), { "text-anchor": "end", "font-size": 10.5, fill: COLORS.muted }));
    svg.appendChild(text(padL - 6, padT + plotH, "0", { "text-anchor": "end", "font-size": 10.5, fill: COLORS.muted }));
    svg.appendChild(text(12, padT + plotH / 2, "P(b = k)", { "font-size": 11, fill: COLORS.muted, transform: "rotate(-90 12 " + (padT + plotH / 2) + ")", "text-anchor": "middle" }));

    /* Shade the tail regions behind the bars: far-out bars are too short to see. */
    if (D > 0) {
      const edges = [];
      if (alternative === "greater") edges.push([b, kMax]);
      else if (alternative === "less") edges.push([kMin, b]);
      else { edges.push([kMin, Math.min(b, c)]); edges.push([Math.max(b, c), kMax]); }
      for (const [from, to] of edges) {
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

    /* x-axis ticks: ends, centre and the observed value. */
    const ticks = new Set([kMin, kMax, Math.round(D / 2)]);
    for (const k of ticks) {
      if (k < kMin || k > kMax) continue;
      svg.appendChild(el("line", { x1: x(k), y1: padT + plotH, x2: x(k), y2: padT + plotH + 4, stroke: COLORS.muted }));
      svg.appendChild(text(x(k), padT + plotH + 16, fmtCount(k), { "text-anchor": "middle", "font-size": 10.5, fill: COLORS.muted }));
    }
    const xLabel = W < 480
      ? "k = disagreements won by " + clip(names.a, 12) + " (of " + fmtCount(D) + ")"
      : "k = disagreements won by " + clip(names.a, 24) + " (A right, B wrong), out of D = " + fmtCount(D);
    svg.appendChild(text(padL + plotW / 2, H - 8, xLabel, { "text-anchor": "middle", "font-size": 11.5, fill: COLORS.muted }));

    function marker(k, caption, dashed) {
      if (k < kMin - step / 2 || k > kMax + step / 2) {
        const right = k > kMax;
        const xe = right ? padL + plotW : padL;
        svg.appendChild(el("path", {
          d: right ? "M" + (xe - 14) + " " + (padT + 6) + " l14 6 l-14 6 z" : "M" + (xe + 14) + " " + (padT + 6) + " l-14 6 l14 6 z",
          fill: COLORS.aSide,
        }));
        svg.appendChild(text(right ? xe - 18 : xe + 18, padT + 16, caption + " (off the chart)", {
          "text-anchor": right ? "end" : "start", "font-size": 11.5, fill: COLORS.aSide, "font-weight": 600,
        }));
        return;
      }
      svg.appendChild(el("line", {
        x1: x(k), y1: padT - 6, x2: x(k), y2: padT + plotH,
        stroke: dashed ? COLORS.muted : COLORS.aSide, "stroke-width": dashed ? 1.2 : 2,
        "stroke-dasharray": dashed ? "4 3" : null,
      }));
      const anchor = x(k) > padL + plotW * 0.75 ? "end" : x(k) < padL + plotW * 0.25 ? "start" : "middle";
      svg.appendChild(text(x(k), padT - 10, caption, {
        "text-anchor": anchor, "font-size": 11.5, "font-weight": dashed ? 400 : 600,
        fill: dashed ? COLORS.muted : COLORS.aSide,
      }));
    }
    if (D > 0) {
      marker(b, "observed b = " + fmtCount(b), false);
      if (alternative === "two-sided" && b !== c && Math.abs(b - c) > step) {
        marker(c, "mirror " + fmtCount(c), true);
      }
    }
    container.replaceChildren(svg);
  }

  /* All difference intervals on one axis (in percentage points), zero marked. */
  function intervals(container, rows, estimate, recommended) {
    const W = widthOf(container, 600);
    const rowH = 26, padT = 26, padB = 34;
    const labelW = Math.min(170, Math.round(W * 0.36));
    const padR = 16;
    const usable = rows.filter((r) => r.low !== null && r.high !== null);
    const H = padT + rowH * Math.max(rows.length, 1) + padB;
    const label = "Confidence intervals for the difference in accuracy (A minus B), in percentage points, with zero marked.";
    const svg = svgRoot(W, H, label);
    let lo = 0, hi = 0;
    for (const r of usable) { lo = Math.min(lo, r.low); hi = Math.max(hi, r.high); }
    if (estimate !== null && estimate !== undefined) { lo = Math.min(lo, estimate); hi = Math.max(hi, estimate); }
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    const pad = (hi - lo) * 0.06;
    lo -= pad; hi += pad;
    const plotL = labelW + 8, plotW = W - plotL - padR;
    const x = (v) => plotL + (v - lo) / (hi - lo) * plotW;
    const axisY = padT + rowH * rows.length + 4;

    /* Ticks at "nice" steps in points. */
    const raw = (hi - lo) / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const stepSize = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
    for (let t = Math.ceil(lo / stepSize) * stepSize; t <= hi + 1e-12; t += stepSize) {
      const v = Math.abs(t) < stepSize / 1e6 ? 0 : t;
      svg.appendChild(el("line", { x1: x(v), y1: padT - 4, x2: x(v), y2: axisY, stroke: "#e5e9ef" }));
      svg.appendChild(text(x(v), axisY + 16, (v > 0 ? "+" : "") + Number(v.toPrecision(6)), { "text-anchor": "middle", "font-size": 10.5, fill: COLORS.muted }));
    }
    svg.appendChild(el("line", { x1: plotL, y1: axisY, x2: plotL + plotW, y2: axisY, stroke: COLORS.muted }));
    svg.appendChild(el("line", { x1: x(0), y1: padT - 12, x2: x(0), y2: axisY, stroke: COLORS.ink, "stroke-width": 1.5 }));
    svg.appendChild(text(x(0), padT - 15, "0 = no difference", { "text-anchor": x(0) > W - 90 ? "end" : x(0) < plotL + 60 ? "start" : "middle", "font-size": 11, fill: COLORS.ink }));
    svg.appendChild(text(plotL + plotW / 2, H - 4, W < 480 ? "A − B, percentage points" : "accuracy(A) − accuracy(B), percentage points", { "text-anchor": "middle", "font-size": 11, fill: COLORS.muted }));

    rows.forEach((r, i) => {
      const yc = padT + rowH * i + rowH / 2;
      const rec = r.key === recommended;
      svg.appendChild(text(labelW, yc + 4, clip(r.short || r.label, Math.floor(labelW / 6.6)), { "text-anchor": "end", "font-size": 11.5, "font-weight": rec ? 700 : 400 }));
      if (r.low === null || r.high === null) {
        svg.appendChild(text(plotL + 4, yc + 4, "not available", { "font-size": 11, fill: COLORS.muted }));
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

  window.McNemarCharts = { table2x2: table2x2, nullDistribution: nullDistribution, intervals: intervals, inTail: inTail };
})();
