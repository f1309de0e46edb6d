"""The page of :mod:`kerasattn.interpret.server`: one self-contained HTML file (inline CSS
and JavaScript, nothing loaded from anywhere else).

:func:`render_page` fills in the run's name, model and dataset (escaped) and a JSON
copy of ``ExplainService.info`` for the script. The script posts the texts to
``api/explain`` and draws, per text: the prediction and probabilities; the
attention per word (the ranking used for deletion) beside the gradient attribution
(diverging colours: green for the predicted class, purple against it); what
deleting the top-k attended words does to the prediction; and every attention
layer as a colour map over the words and as heatmaps (canvas; hover a word or a
cell for its value).
"""

import html
import json
import re

_PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kerasattn explain: __RUN__</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; color: #111;
       padding: 0 1em; }
h1 { font-size: 1.4em; margin-bottom: .2em; }
h2 { font-size: 1.15em; margin: 0 0 .4em 0; }
h3 { font-size: .95em; margin: .8em 0 .3em 0; }
.meta { color: #444; margin-top: 0; }
.meta b { color: #111; }
form { border: 1px solid #ccc; border-radius: 6px; padding: .8em 1em; background: #fafafa; }
textarea { width: 100%; box-sizing: border-box; font: inherit; font-size: .95em;
           padding: .4em; min-height: 6em; resize: vertical; }
.controls { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: center; margin-top: .6em; }
.controls input[type=number] { width: 4.5em; }
button { font: inherit; padding: .3em 1.4em; }
#status { color: #555; font-size: .9em; }
#error { background: #fee2e2; border: 1px solid #dc2626; color: #7f1d1d; padding: .6em 1em;
         border-radius: 6px; margin-top: 1em; white-space: pre-wrap; }
.hint { font-size: .85em; color: #555; }
.result { border: 1px solid #ccc; border-radius: 6px; padding: 1em; margin: 1.2em 0; }
.source { color: #555; font-size: .85em; margin: 0 0 .6em 0; overflow-wrap: anywhere; }
.prediction { font-weight: 700; }
.probs { display: grid; grid-template-columns: max-content 14em max-content; gap: .15em .6em;
         align-items: center; font-size: .85em; margin-bottom: .6em; }
.bar { background: #eee; height: .8em; border-radius: 3px; overflow: hidden; }
.fill { background: #6b7280; height: 100%; }
.predicted .fill { background: #dc2626; }
.predicted { font-weight: 600; }
.panels { display: grid; grid-template-columns: 1fr 1fr; gap: 1.2em; }
.panel { min-width: 0; }
.panel-title { font-size: .85em; font-weight: 600; color: #333; }
.words { line-height: 2.1; }
.w { padding: 2px 3px; margin: 0 1px; border-radius: 3px; white-space: nowrap; }
.w.strong { color: white; }
.w.summary { font-style: italic; border: 1px dashed #999; }
.sentence { margin: .1em 0; }
.s { display: inline-block; min-width: 2.4em; font-size: .75em; color: #555; }
.note { font-size: .85em; color: #555; }
.most-attended-line { font-size: .9em; }
.most-attended { font-weight: 700; background: rgba(220,38,38,.9); color: white;
                 padding: 1px 4px; border-radius: 3px; }
.deletion { background: #f8fafc; border: 1px solid #e2e8f0; border-radius: 6px;
            padding: .4em .8em; margin-top: .8em; }
.deletion del { color: #b91c1c; }
.flip { color: #b91c1c; font-weight: 700; }
details.layers { margin-top: .8em; }
details.layers > summary { cursor: pointer; font-weight: 600; font-size: .95em; }
.layer { border-top: 1px solid #eee; margin-top: .6em; padding-top: .2em; }
.axes { font-weight: normal; color: #666; font-size: .85em; }
.maps { display: flex; flex-wrap: wrap; gap: .8em 1.2em; align-items: flex-start; }
.map { overflow-x: auto; max-width: 100%; }
.map-title { font-size: .75em; color: #555; }
canvas { display: block; }
.legend { display: inline-block; width: 10em; height: .9em; vertical-align: middle;
          background: linear-gradient(to right, rgba(220,38,38,.05), rgba(220,38,38,.9)); }
.legend-signed { display: inline-block; width: 12em; height: .9em; vertical-align: middle;
          background: linear-gradient(to right, rgba(118,42,131,.9), rgba(118,42,131,.05),
                                      white, rgba(27,120,55,.05), rgba(27,120,55,.9)); }
@media (max-width: 50em) { .panels { grid-template-columns: 1fr; } }
</style>
</head>
<body data-state="idle">
<h1>What does the model attend to?</h1>
<p class="meta">run <b id="run-name">__RUN__</b> &middot; model <b id="run-model">__MODEL__</b>
&middot; dataset <b id="run-dataset">__DATASET__</b> &middot; classes <span id="run-classes">__CLASSES__</span></p>
<form id="form" autocomplete="off">
<label for="texts"><b>Texts</b>, one per line (at most <span id="max-texts"></span>):</label>
<textarea id="texts" name="texts" rows="5" spellcheck="false"
          placeholder="a gorgeous, witty film&#10;a dull and lifeless story"></textarea>
<div class="controls">
<button id="submit" type="submit">Explain</button>
<label>delete the top <input id="k" name="k" type="number" min="0" value="3"> words</label>
<label>attribution <select id="attribution" name="attribution"></select></label>
<span id="status" aria-live="polite"></span>
</div>
</form>
<div id="error" role="alert" hidden></div>
<p class="hint">Attention: each word's colour is its weight, scaled to the largest in the line:
low <span class="legend"></span> high. Attribution: the word's score for the predicted class,
scaled to the text's largest |score|: against <span class="legend-signed"></span> for.
Hover a word or a heatmap cell for its value.</p>
<main id="results"></main>
<script id="run-info" type="application/json">__INFO__</script>
<script>
"use strict";
const INFO = JSON.parse(document.getElementById("run-info").textContent);
const $ = (id) => document.getElementById(id);
const METHOD_NAMES = {gradient_x_input: "gradient \u00d7 input",
                      integrated_gradients: "integrated gradients"};
let lastTexts = null, seq = 0, timer = null;

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "className") e.className = value;
    else if (key === "text") e.textContent = value;
    else if (key === "data") Object.assign(e.dataset, value);
    else if (key === "style") e.style.cssText = value;
    else e.setAttribute(key, value);
  }
  for (const c of children) if (c !== null && c !== undefined)
    e.append(c instanceof Node ? c : String(c));
  return e;
}
const fmt = (v, d) => (v === null || v === undefined) ? "\u2013" : Number(v).toFixed(d ?? 3);
const pct = (v) => (100 * v).toFixed(1) + "%";
const signed = (v) => (v >= 0.05 ? "+" : v <= -0.05 ? "\u2212" : "\u00b1") + Math.abs(v).toFixed(1);

function setState(state, message) {
  document.body.dataset.state = state;
  $("status").textContent = message || "";
  $("submit").disabled = state === "busy";
}
function showError(message) {
  $("error").textContent = message; $("error").hidden = false; setState("error", "");
}

// -- colours ---------------------------------------------------------------------------
function seqColour(v) {  // v in [0, 1]
  return v > 0 ? `rgba(220, 38, 38, ${(0.05 + 0.85 * Math.min(v, 1)).toFixed(3)})` : "transparent";
}
function divColour(v) {  // v in [-1, 1]: green for, purple against
  if (!v) return "transparent";
  const a = (0.05 + 0.85 * Math.min(Math.abs(v), 1)).toFixed(3);
  return v > 0 ? `rgba(27, 120, 55, ${a})` : `rgba(118, 42, 131, ${a})`;
}
function word(text, colour, strong, title, extra) {
  return el("span", {className: "w" + (strong ? " strong" : "") + (extra ? " " + extra : ""),
                     style: `background: ${colour}`, title}, text);
}

// -- n-dimensional arrays --------------------------------------------------------------
function nd(nested) {
  const shape = [];
  for (let x = nested; Array.isArray(x); x = x[0]) { shape.push(x.length); if (!x.length) break; }
  const data = [];
  (function walk(a) { if (Array.isArray(a)) a.forEach(walk); else data.push(a ?? 0); })(nested);
  return {shape, data};
}
function reduce(t, axes, keep) {  // the mean over every axis not in keep; keep's order
  const ki = keep.map((a) => axes.indexOf(a));
  const shape = ki.map((i) => t.shape[i]);
  const size = shape.reduce((a, b) => a * b, 1);
  const sum = new Float64Array(size), count = new Float64Array(size);
  const idx = new Array(t.shape.length).fill(0);
  for (let f = 0; f < t.data.length; f++) {
    let o = 0;
    for (let j = 0; j < ki.length; j++) o = o * shape[j] + idx[ki[j]];
    sum[o] += t.data[f]; count[o] += 1;
    for (let d = t.shape.length - 1; d >= 0; d--) { if (++idx[d] < t.shape[d]) break; idx[d] = 0; }
  }
  return {shape, data: Array.from(sum, (s, i) => count[i] ? s / count[i] : 0)};
}
function slices(t, leading) {  // split along the first `leading` axes: [{index, t}]
  const lead = t.shape.slice(0, leading), rest = t.shape.slice(leading);
  const n = lead.reduce((a, b) => a * b, 1), size = rest.reduce((a, b) => a * b, 1);
  const out = [];
  for (let i = 0; i < n; i++) {
    const index = []; let r = i;
    for (let d = lead.length - 1; d >= 0; d--) { index.unshift(r % lead[d]); r = Math.floor(r / lead[d]); }
    out.push({index, t: {shape: rest, data: t.data.slice(i * size, (i + 1) * size)}});
  }
  return out;
}
function rows2d(t) {  // a 1-D or 2-D array -> list of rows
  if (t.shape.length === 1) return [t.data.slice()];
  const [r, c] = t.shape, out = [];
  for (let i = 0; i < r; i++) out.push(t.data.slice(i * c, (i + 1) * c));
  return out;
}
const maxOf = (values) => values.reduce((m, v) => (v !== null && v > m ? v : m), 0);

// -- drawing ---------------------------------------------------------------------------
function colourLine(units, values, note) {  // one line of words coloured by values
  const top = maxOf(values), line = el("div", {className: "words"});
  if (note) line.append(el("span", {className: "s"}, note));
  units.forEach((u, i) => {
    const v = values[i] ?? 0, s = top > 0 ? v / top : 0;
    line.append(word(u.text, seqColour(s), s > 0.6, `${u.title || u.text}: ${fmt(v, 4)}`,
                     u.summary ? "summary" : ""), " ");
  });
  return line;
}

function heatmap(title, rowLabels, colLabels, matrix, cellName) {
  const R = matrix.length, C = Math.max(1, ...matrix.map((r) => r.length));
  const cell = Math.max(4, Math.min(24, Math.floor(640 / C)));
  const canvas = el("canvas", {role: "img", "aria-label": title});
  const ctx = canvas.getContext("2d");
  ctx.font = "11px system-ui, sans-serif";
  const clip = (s) => (s.length > 14 ? s.slice(0, 13) + "\u2026" : s);
  const showCols = cell >= 10 && colLabels, showRows = cell >= 8 && rowLabels;
  const colW = showCols ? Math.max(...colLabels.map((s) => ctx.measureText(clip(s)).width)) : 0;
  const rowW = showRows ? Math.max(...rowLabels.map((s) => ctx.measureText(clip(s)).width)) : 0;
  const left = showRows ? Math.ceil(rowW) + 6 : 0;
  const top = showCols ? Math.ceil(colW * 0.87 + 10) : 0;
  const width = left + C * cell + (showCols ? 40 : 1), height = top + R * cell + 1;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.ceil(width * dpr); canvas.height = Math.ceil(height * dpr);
  canvas.style.width = width + "px"; canvas.style.height = height + "px";
  ctx.scale(dpr, dpr);
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "white"; ctx.fillRect(0, 0, width, height);
  const peak = Math.max(...matrix.map(maxOf), 0);
  matrix.forEach((row, r) => row.forEach((v, c) => {
    if (v === null) return;
    ctx.fillStyle = seqColour(peak > 0 ? v / peak : 0);
    ctx.fillRect(left + c * cell, top + r * cell, cell, cell);
  }));
  ctx.strokeStyle = "#bbb"; ctx.lineWidth = 1;
  ctx.strokeRect(left + 0.5, top + 0.5, C * cell, R * cell);
  ctx.fillStyle = "#222";
  if (showRows) {
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    rowLabels.forEach((s, r) => ctx.fillText(clip(s), left - 4, top + r * cell + cell / 2));
  }
  if (showCols) {
    ctx.textAlign = "left"; ctx.textBaseline = "middle";
    colLabels.forEach((s, c) => {
      ctx.save(); ctx.translate(left + c * cell + cell / 2, top - 4); ctx.rotate(-Math.PI / 3);
      ctx.fillText(clip(s), 0, 0); ctx.restore();
    });
  }
  canvas.addEventListener("mousemove", (e) => {
    const b = canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - b.left - left) / cell), r = Math.floor((e.clientY - b.top - top) / cell);
    const v = (matrix[r] || [])[c];
    canvas.title = (v === undefined || v === null) ? "" : `${cellName(r, c)}: ${fmt(v, 4)}`;
  });
  return el("div", {className: "map"}, el("div", {className: "map-title"}, title), canvas);
}

// -- one attention layer ---------------------------------------------------------------
function layerView(name, weights, axes, res) {
  const t = nd(weights), A = axes.slice();
  const wordLevel = res.hierarchical && A[0] === "sentence";
  const sentenceLevel = res.hierarchical && !wordLevel;
  const sentenceNames = res.hierarchical ? res.tokens.map((s, i) => `S${i + 1}`) : [];
  const kind = A.includes("query") && A.includes("key") ? "self"
    : A.includes("step") && A.includes("memory") ? "iram" : A.includes("token") ? "pool" : "other";
  const last = kind === "self" ? "key" : kind === "iram" ? "memory" : kind === "pool" ? "token" : A[A.length - 1];
  const box = el("div", {className: "layer", data: {layer: name}});
  box.append(el("h3", {}, name + " ", el("span", {className: "axes"}, `(${A.join(" \u00d7 ")})`)));
  // unit labels along a token axis
  const flatUnits = (n) => (res.hierarchical ? sentenceNames : res.tokens).slice(0, n)
    .map((w, i) => ({text: sentenceLevel ? w + " " + res.tokens[i].slice(0, 4).join(" ") + (res.tokens[i].length > 4 ? "\u2026" : "") : w,
                     title: sentenceLevel ? res.tokens[i].join(" ") : w}));
  const maps = el("div", {className: "maps"});
  if (kind === "iram") {  // one line per step: words, then the earlier steps' summaries
    const m = reduce(t, A, ["step", "memory"]), n = m.shape[1] - (m.shape[0] - 1);
    const units = flatUnits(n).concat(Array.from({length: m.shape[0] - 1}, (_, j) => ({text: `s${j + 1}`, title: `summary ${j + 1}`, summary: true})));
    const rows = rows2d(m);
    rows.forEach((row, s) => box.append(colourLine(units, row, `step ${s + 1}`)));
    maps.append(heatmap(`${name}: steps \u00d7 (words, summaries)`, rows.map((_, s) => `step ${s + 1}`),
                        units.map((u) => u.text), rows, (r, c) => `step ${r + 1} \u2192 ${units[c].title}`));
  } else if (wordLevel) {  // one line per sentence, its words coloured
    const v = reduce(t, A, ["sentence", last]);
    const rows = rows2d(v).map((row, s) => row.slice(0, res.tokens[s].length));
    rows.forEach((row, s) => box.append(el("div", {className: "sentence"},
      colourLine(res.tokens[s].map((w) => ({text: w})), row, sentenceNames[s]))));
    if (kind === "self") {  // query x key per sentence (heads averaged)
      const per = slices(reduce(t, A, ["sentence", "query", "key"]), 1);
      per.slice(0, 8).forEach(({index, t: m}) => {
        const s = index[0], n = res.tokens[s].length;
        const mat = rows2d(m).slice(0, n).map((r) => r.slice(0, n));
        maps.append(heatmap(`${sentenceNames[s]} (heads averaged)`, res.tokens[s], res.tokens[s], mat,
                            (r, c) => `${res.tokens[s][r]} \u2192 ${res.tokens[s][c]}`));
      });
      if (per.length > 8) maps.append(el("p", {className: "note"}, `(${per.length - 8} more sentences not drawn)`));
    } else {  // sentences x words (HCAN's Figure 4)
      const mat = rows.map((row) => row.concat(new Array(Math.max(0, v.shape[1] - row.length)).fill(null)));
      maps.append(heatmap(`${name}: sentences \u00d7 words`, sentenceNames, null, mat,
                          (r, c) => `${sentenceNames[r]}, ${res.tokens[r][c]}`));
    }
  } else {  // a flat model's layer, or a hierarchical model's sentence level
    const v = reduce(t, A, [last]);
    const n = v.shape[0], units = flatUnits(n);
    box.append(colourLine(units, v.data, kind === "self" ? "received" : ""));
    const labels = units.map((u) => (sentenceLevel ? u.text.split(" ")[0] : u.text));
    const titles = units.map((u) => u.title);
    if (kind === "self") {
      const other = A.filter((a) => a !== "query" && a !== "key");
      const combos = other.reduce((p, a) => p * t.shape[A.indexOf(a)], 1);
      const keep = combos <= 8 ? other.concat(["query", "key"]) : ["query", "key"];
      const per = slices(reduce(t, A, keep), keep.length - 2);
      per.forEach(({index, t: m}) => {
        const what = combos <= 8 && other.length ? index.map((x, j) => `${other[j]} ${x}`).join(", ")
          : (other.length ? other.join(", ") + " averaged" : "");
        maps.append(heatmap(`${what || name} (rows attend to columns)`, labels, labels, rows2d(m),
                            (r, c) => `${titles[r]} \u2192 ${titles[c]}`));
      });
    } else {
      const other = A.filter((a) => a !== last);
      const mat = other.length === 1 ? rows2d(reduce(t, A, [other[0], last])) : [v.data];
      const rowLabels = other.length === 1 ? mat.map((_, r) => `${other[0]} ${r}`) : ["weight"];
      maps.append(heatmap(`${name}${other.length > 1 ? " (" + other.join(", ") + " averaged)" : ""}`,
                          rowLabels, labels, mat, (r, c) => `${rowLabels[r]}, ${titles[c]}`));
    }
  }
  box.append(maps);
  return box;
}

// -- one text --------------------------------------------------------------------------
function tokenLines(res, values, colour, title) {  // words (sentences) coloured by values
  const box = el("div", {className: "words"});
  const sentences = res.hierarchical ? res.tokens : [res.tokens];
  const vals = res.hierarchical ? values : [values];
  sentences.forEach((words, s) => {
    const line = el("div", {className: res.hierarchical ? "sentence" : ""});
    if (res.hierarchical) line.append(el("span", {className: "s"}, `S${s + 1}`));
    words.forEach((w, i) => {
      const [bg, strong] = colour(vals[s][i]);
      line.append(word(w, bg, strong, `${w}: ${title} ${fmt(vals[s][i], 4)}`), " ");
    });
    box.append(line);
  });
  return box;
}
const flatten = (res, nested) => (res.hierarchical ? nested.flat() : nested);

function renderResult(res, i, data) {
  const names = data.class_names;
  const sec = el("section", {className: "result", id: `result-${i}`, data: {label: res.label}});
  const p = res.probabilities[res.label];
  sec.append(el("h2", {}, `Text ${i + 1}: predicted `,
                el("span", {className: "prediction", data: {label: res.label}}, res.label_name),
                ` (${pct(p)})`));
  sec.append(el("p", {className: "source"}, res.text.length > 400 ? res.text.slice(0, 400) + "\u2026" : res.text));
  const probs = el("div", {className: "probs"});
  names.forEach((n, c) => {
    const cls = c === res.label ? "predicted" : "";
    probs.append(el("span", {className: cls}, n),
                 el("span", {className: "bar " + cls}, el("span", {className: "fill", style: `display:block; width: ${pct(res.probabilities[c])}`})),
                 el("span", {className: "prob " + cls}, fmt(res.probabilities[c])));
  });
  sec.append(probs);
  if (!flatten(res, res.tokens).length) {
    sec.append(el("p", {className: "note"}, "(no words left after preprocessing)"));
    return sec;
  }
  const panels = el("div", {className: "panels"});
  const left = el("div", {className: "panel attention-panel"}, el("div", {className: "panel-title"}, "attention per word"));
  if (res.attention_scores) {
    const top = maxOf(flatten(res, res.attention_scores));
    left.append(el("div", {className: "most-attended-line"}, "most attended word: ",
                   el("span", {className: "most-attended"}, res.most_attended.token)));
    left.append(tokenLines(res, res.attention_scores, (v) => [seqColour(top > 0 ? v / top : 0), top > 0 && v / top > 0.6], "attention"));
  } else {
    left.append(el("p", {className: "note"}, "(this model has no attention layer)"));
  }
  const right = el("div", {className: "panel attribution-panel"});
  if (res.attribution) {
    const a = res.attribution, big = Math.max(...flatten(res, a.scores).map(Math.abs), 0);
    right.append(el("div", {className: "panel-title"},
                    `${METHOD_NAMES[a.method] || a.method} for ${a.target_name}`));
    right.append(tokenLines(res, a.scores, (v) => [divColour(big > 0 ? v / big : 0), big > 0 && Math.abs(v) / big > 0.6], "attribution"));
    if (a.completeness_gap !== undefined)
      right.append(el("p", {className: "note"}, `completeness gap ${fmt(a.completeness_gap, 4)}`));
  }
  panels.append(left, right);
  sec.append(panels);
  // deletion
  const d = res.deletion, by = d.by === "attention" ? "attended" : "attributed";
  const del = el("div", {className: "deletion", data: {k: d.k}});
  del.append(el("h3", {}, `Deleting the top ${d.k} ${by} word${d.k === 1 ? "" : "s"}`));
  const gone = new Set(d.removed.map((r) => r.index));
  const text = el("div", {className: "words remaining"});
  flatten(res, res.tokens).forEach((w, j) => text.append(gone.has(j) ? el("del", {}, w) : w, " "));
  const before = res.probabilities[res.label], after = d.probabilities[res.label];
  del.append(text, el("p", {className: "deletion-result"}, "prediction: ",
    el("b", {}, res.label_name), ` (${pct(before)}) \u2192 `,
    el("b", {className: "deleted-prediction", data: {label: d.label}}, d.label_name),
    ` (${pct(d.probabilities[d.label])}); p(${res.label_name}) ${signed(100 * (after - before))} points`,
    d.label !== res.label ? el("span", {className: "flip"}, " \u2014 the prediction flips") : null));
  sec.append(del);
  // every layer
  const layers = Object.keys(res.attention);
  if (layers.length) {
    const det = el("details", {className: "layers", open: ""},
                   el("summary", {}, `Attention layers (${layers.length})`));
    for (const name of layers) {
      try { det.append(layerView(name, res.attention[name], res.axes[name], res)); }
      catch (e) { det.append(el("p", {className: "note"}, `${name}: could not draw (${e.message})`)); }
    }
    sec.append(det);
  }
  return sec;
}

// -- talking to the server -------------------------------------------------------------
async function query(texts) {
  const mine = ++seq;
  $("error").hidden = true;
  setState("busy", "explaining\u2026");
  const body = {texts, k: Number.parseInt($("k").value || "0", 10) || 0};
  if ($("attribution").value) body.attribution = $("attribution").value;
  try {
    const r = await fetch("api/explain", {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify(body)});
    const data = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}));
    if (mine !== seq) return;  // a newer request is on its way
    if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
    const root = $("results");
    root.replaceChildren(...data.results.map((res, i) => renderResult(res, i, data)));
    setState("done", "");
    document.body.dataset.seq = String(mine);
  } catch (e) {
    if (mine === seq) showError(e.message);
  }
}

function submitTexts() {
  const texts = $("texts").value.split(/\r?\n/).map((t) => t.trim()).filter((t) => t);
  if (!texts.length) { showError("Type a text to explain."); return; }
  if (texts.length > INFO.limits.max_texts) { showError(`At most ${INFO.limits.max_texts} texts (one per line), got ${texts.length}.`); return; }
  const long = texts.findIndex((t) => t.length > INFO.limits.max_text_chars);
  if (long >= 0) { showError(`Text ${long + 1} is longer than ${INFO.limits.max_text_chars} characters.`); return; }
  lastTexts = texts;
  query(texts);
}

function requery() {
  clearTimeout(timer);
  timer = setTimeout(() => { if (lastTexts) query(lastTexts); }, 250);
}

$("max-texts").textContent = INFO.limits.max_texts;
$("k").max = INFO.limits.max_k;
$("k").value = INFO.defaults.k;
for (const m of INFO.attributions) $("attribution").append(el("option", {value: m}, METHOD_NAMES[m] || m));
if (!INFO.attributions.length) $("attribution").disabled = true;
$("form").addEventListener("submit", (e) => { e.preventDefault(); submitTexts(); });
$("texts").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submitTexts(); } });
$("k").addEventListener("input", requery);
$("attribution").addEventListener("change", requery);
document.body.dataset.state = "ready";
</script>
</body>
</html>
"""


def _script_json(obj):
    """JSON safe inside a <script> element (no "</script>", no "<!--")."""
    return (json.dumps(obj, ensure_ascii=True).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def render_page(info):
    """The page's HTML for a run (``ExplainService.info``)."""
    def esc(value):
        return html.escape(str(value if value is not None else "?"))

    fields = {"INFO": _script_json(info), "RUN": esc(info.get("run")),
              "MODEL": esc(info.get("model")), "DATASET": esc(info.get("dataset")),
              "CLASSES": esc(", ".join(info.get("class_names") or []))}
    # one pass: a value is never searched for placeholders again
    return re.sub(r"__(INFO|RUN|MODEL|DATASET|CLASSES)__", lambda m: fields[m.group(1)], _PAGE)
