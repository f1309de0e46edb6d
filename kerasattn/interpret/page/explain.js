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
