/* Building the page's elements (each function touches the document only when called). */

import { breakRuns } from "./text.js";

export const $ = (id) => document.getElementById(id);

export function clear(node) { node.replaceChildren(); }

export function h(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children || []) {
    if (child === null || child === undefined) continue;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/* A long number as text nodes with line-break opportunities (see breakRuns). */
export function breakable(s) {
  const nodes = [];
  for (const run of breakRuns(s)) {
    nodes.push(document.createTextNode(run));
    if (/[,⁰¹²³⁴⁵⁶⁷⁸⁹]$/.test(run)) nodes.push(document.createElement("wbr"));
  }
  return nodes;
}
