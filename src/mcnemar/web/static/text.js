/* The page's words around the numbers: pure functions of text, no document.

   The page formats no number itself: every number comes from the server as the text report
   prints it, either in the report (tests[k].pvalue_text, difference.interval_texts,
   tasks[i].texts, ...) or in the response's "display" object (counts, levels, the margin,
   the scores of the flips...). Only the typography is the page's: e-notation is written as
   a power of ten (2.5e-07 as 2.5 × 10⁻⁷, same digits). */

const SUPERSCRIPT = {
  "-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹",
};

/* A text of the server as the page shows it: "—" for none, e-notation as a power of ten. */
export function shown(text) {
  if (text === null || text === undefined || text === "") return "—";
  const m = /^([<>]?[+-]?)(\d+(?:\.\d+)?)e([+-]?)0*(\d+)$/.exec(String(text));
  if (!m) return String(text);
  const exp = (m[3] === "-" ? "-" : "") + m[4];
  return m[1] + m[2] + " × 10" + exp.split("").map((ch) => SUPERSCRIPT[ch]).join("");
}

/* "p = 0.002577", but "p < 1 × 10⁻³⁰⁰" for a bound. */
export function pIs(pText) {
  return /^[<>]/.test(pText) ? "p " + pText : "p = " + pText;
}

/* An interval's two limits as the server wrote them, "[+2.6, +11.7]". */
export function pairText(texts) {
  return Array.isArray(texts) && texts.length === 2 ? "[" + shown(texts[0]) + ", " + shown(texts[1]) + "]" : "—";
}

/* A value of the report that is not a number shown (a warning, a note, a name) as text. */
export function asText(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(asText).join(", ");
  if (typeof value === "object" && "message" in value) return String(value.message);
  return JSON.stringify(value);
}

export function capitalize(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

/* A long text cut into runs, each ending where a line may break: after each thousands comma
   and between the digits of a long exponent, so that 4,503,599,627,370,496 and
   5.6 × 10⁻¹³⁵⁵⁷¹⁸⁵⁷⁶²⁹⁹⁶⁰⁰ can wrap in a narrow table cell (and still copy as typed). */
export function breakRuns(s) {
  const runs = [];
  let run = "";
  for (const ch of String(s)) {
    run += ch;
    if (ch === "," || "⁰¹²³⁴⁵⁶⁷⁸⁹".includes(ch)) {
      runs.push(run);
      run = "";
    }
  }
  if (run) runs.push(run);
  return runs;
}

/* What a field of the display object holds, or "—" when the response has none. */
export function displayed(display, ...path) {
  let node = display;
  for (const key of path) {
    if (node === null || node === undefined) return "—";
    node = node[key];
  }
  return node === null || node === undefined || typeof node === "object" ? "—" : String(node);
}
