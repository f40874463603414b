// The analysis board of `ataxx-solve serve`. Everything it shows comes from the server's API
// (the solver's Python API): positions and legal moves (/api/position), the board drawn as
// --svg draws it and every move's value (/api/analyse), the board's summaries (/api/board),
// games (/api/load) and verify's verdicts (/api/verify, /api/annotate). No build step.
"use strict";

const $ = (id) => document.getElementById(id);

const state = {
  rules: "classic",
  line: [],            // [{fen, move}]: move is the one (uci) that led there, null at the start
  index: 0,
  flipped: false,
  position: null,      // /api/position's answer for line[index]
  analyses: new Map(), // rules + fen -> /api/analyse's result
  selected: null,      // the square of the piece picked to jump
  source: null,        // a loaded game: {text, number, label, records: Map(ply -> verify record), summary}
  events: null,        // the EventSource of the running analysis
  job: null,
  token: 0,            // which showing of a position is current (answers to older ones are dropped)
  asked: 0,            // which request for a new line (a new board, a loaded text) is the latest
};

function say(text) { $("message").textContent = text || ""; }

async function api(path, options) {
  const response = await fetch(path, options);
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new Error(text || `${response.status} ${response.statusText}`);
  }
  return response;
}

async function getJSON(path, options) { return (await api(path, options)).json(); }

function query(params) {
  return Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

function key(fen) { return `${state.rules} ${fen}`; }

function signed(n) { return n > 0 ? `+${n}` : `${n}`; }

function valueText(a) {
  if (a === undefined || a === null) return "";
  return "value" in a ? signed(a.value) : `${signed(a.lower)}..${signed(a.upper)}`;
}

// -- the line of play -------------------------------------------------------------------------

function current() { return state.line[state.index]; }

// A new line replaces the old one; a request for one still on its way (a new board, a loaded
// text) is then out of date, and its answer is dropped: the latest action wins.
function setLine(line, index) {
  state.asked++;
  state.line = line;
  state.index = index;
  state.selected = null;
  show();
}

function go(index) {
  if (index < 0 || index >= state.line.length || index === state.index) return;
  state.index = index;
  state.selected = null;
  show();
}

async function play(uci) {
  const here = current();
  try {
    const pos = await getJSON(`/api/position?${query({fen: here.fen, rules: state.rules, moves: uci})}`);
    const line = state.line.slice(0, state.index + 1);
    const next = state.line[state.index + 1];
    if (next && next.move === uci && next.fen === pos.fen) { go(state.index + 1); return; }  // the line's own move
    line.push({fen: pos.fen, move: uci});
    state.line = line;
    state.index = line.length - 1;
    state.selected = null;
    show(pos);
  } catch (err) { say(err.message); }
}

// -- one position -------------------------------------------------------------------------------

async function show(known) {
  const token = ++state.token;
  stopWatching();
  const here = current();
  say("");
  let pos = known;
  try {
    if (!pos) pos = await getJSON(`/api/position?${query({fen: here.fen, rules: state.rules})}`);
  } catch (err) { say(err.message); return; }
  if (token !== state.token) return;
  here.fen = pos.fen;  // (a position given in the address or a grid: the server's FEN from now on)
  if (!state.position || state.position.rows !== pos.rows || state.position.cols !== pos.cols) {
    $("new-rows").value = `${pos.rows}`;  // "New board" starts from the size shown
    $("new-cols").value = `${pos.cols}`;
  }
  state.position = pos;
  // the address opens this position with these rules again (replaceState: no entry in the history)
  history.replaceState(null, "", `${location.pathname}?${query({fen: pos.fen, rules: state.rules})}`);
  const board = $("board");
  board.dataset.fen = pos.fen;
  board.dataset.analysed = "0";
  board.innerHTML = pos.svg;
  renderNav();
  renderLine();
  renderVerdict();
  renderHistory();
  renderFactsButton();
  $("moves").tBodies[0].innerHTML = "";
  $("position-words").textContent = "";
  $("pass").hidden = !(pos.moves.length === 1 && pos.moves[0].kind === "pass");
  $("caption").textContent = pos.over ? `game over: ${signed(pos.result)} (X's side)` : `${pos.turn_name} to move`;
  const done = state.analyses.get(key(pos.fen));
  if (done) { showAnalysis(done, true); return; }
  analyse(pos, here.move, token);
}

function analyse(pos, last, token) {
  const url = `/api/analyse?${query({fen: pos.fen, rules: state.rules, last})}`;
  const events = new EventSource(url);
  state.events = events;
  $("progress").hidden = false;
  $("progress-text").textContent = "solving...";
  events.addEventListener("job", (e) => { state.job = JSON.parse(e.data).id; });
  events.addEventListener("progress", (e) => {
    if (token !== state.token) return;
    const s = JSON.parse(e.data);
    $("progress-text").textContent = progressText(s);
    if (s.analysis) showAnalysis(s.analysis, false);
  });
  events.addEventListener("result", (e) => {
    events.close();
    if (token !== state.token) return;
    const a = JSON.parse(e.data);
    state.analyses.set(key(a.fen), a);
    state.events = null;
    state.job = null;
    $("progress").hidden = true;
    showAnalysis(a, true);
    renderHistory();
  });
  events.addEventListener("failed", (e) => { events.close(); say(JSON.parse(e.data).error); $("progress").hidden = true; });
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED || state.events !== events) return;
    events.close();
    $("progress").hidden = true;
    say("the analysis stopped: the server did not answer (is ataxx-solve serve still running?)");
  };
}

function stopWatching() {
  if (state.events) { state.events.close(); state.events = null; }
  state.job = null;
  $("progress").hidden = true;
}

function count(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return `${n}`;
}

function progressText(s) {
  const parts = [];
  parts.push(s.searching ? `searching after ${s.searching}` : (s.phase || "solving"));
  if (s.done !== undefined) parts.push(`${count(s.done)} ${s.unit || ""}${s.total ? ` of ${count(s.total)}` : ""}`);
  if (s.lower !== undefined && s.upper !== undefined) parts.push(`value ${signed(s.lower)}..${signed(s.upper)} so far`);
  if (s.elapsed !== undefined) parts.push(`${s.elapsed.toFixed(1)} s`);
  return parts.join(", ");
}

function showAnalysis(a, final) {
  const pos = state.position;
  if (!pos || a.fen !== pos.fen) return;
  const board = $("board");
  board.innerHTML = a.svg;
  if (final) board.dataset.analysed = "1";
  markSelection();
  const unproved = !a.exact ? "only bounds proved" : a.moves.some((m) => !("value" in m)) ? "some moves' values not proved"
    : "some depths not proved";
  const stopped = a.stopped ? ` (stopped: ${a.stopped === "time" ? "out of time" : a.stopped === "interrupt" ? "stopped" : a.stopped}; ${unproved})` : "";
  if (!pos.over) {
    const depth = a.depth === undefined ? "" : a.depth === null ? ", depth infinite" : `, depth ${a.depth}`;
    $("caption").textContent = `${pos.turn_name} to move: ${a.words} (value ${valueText(a)})${depth}${final ? stopped : ""}`;
  }
  $("position-words").textContent = final ? `(${a.solver})` : "";
  const body = $("moves").tBodies[0];
  body.innerHTML = "";
  for (const m of a.moves) {
    const tr = document.createElement("tr");
    tr.dataset.uci = m.uci;
    tr.dataset.category = m.category;
    const cat = m.category === "draw by infinite play" ? "infinite" : m.category;
    const label = {win: "win", loss: "loss", draw: "draw", infinite: "draw ∞", unknown: "?"}[cat] || cat;
    const depth = m.depth === undefined ? "" : m.depth === null ? "∞" : `${m.depth}`;
    tr.innerHTML = `<td class="move"></td><td class="value"></td><td class="words"><span class="cat ${cat}"></span><span class="w"></span></td><td class="depth"></td><td class="badge ${m.verdict}"></td>`;
    tr.querySelector(".move").textContent = m.uci + (a.best_move === m.uci ? " ★" : "");
    tr.querySelector(".value").textContent = valueText(m);
    tr.querySelector(".cat").textContent = label;
    tr.querySelector(".w").textContent = m.words;
    tr.querySelector(".depth").textContent = depth;
    tr.querySelector(".badge").textContent = m.verdict || "";  // verify's word: optimal, inaccuracy, blunder, unsettled
    tr.addEventListener("click", () => play(m.uci));
    body.appendChild(tr);
  }
}

// -- clicks on the board --------------------------------------------------------------------------

function squareOf(target) {
  const rect = target.closest && target.closest("rect.square");
  return rect && rect.id.startsWith("sq-") ? rect.id.slice(3) : null;
}

function pieceAt(pos, square) {
  const file = square.charCodeAt(0) - 97;
  const rank = parseInt(square.slice(1), 10);
  const row = pos.grid[pos.rows - rank];
  return row ? row[file] : null;
}

function markSelection() {
  const board = $("board");
  for (const r of board.querySelectorAll("rect.selected, rect.target")) r.classList.remove("selected", "target");
  if (!state.selected || !state.position) return;
  const rect = board.querySelector(`#sq-${state.selected}`);
  if (rect) rect.classList.add("selected");
  for (const m of state.position.moves) {
    if (m.from === state.selected) {
      const t = board.querySelector(`#sq-${m.to}`);
      if (t) t.classList.add("target");
    }
  }
}

function clickSquare(square) {
  const pos = state.position;
  if (!pos || pos.over) return;
  if (state.selected) {
    const jump = pos.moves.find((m) => m.from === state.selected && m.to === square);
    if (jump) { play(jump.uci); return; }
  }
  if (pieceAt(pos, square) === pos.turn) {
    state.selected = state.selected === square ? null : square;
    markSelection();
    return;
  }
  const clone = pos.moves.find((m) => m.kind === "clone" && m.to === square);
  const jumps = pos.moves.filter((m) => m.kind === "jump" && m.to === square);
  state.selected = null;
  if (clone) play(clone.uci);
  else if (jumps.length === 1) play(jumps[0].uci);
  else markSelection();
}

// -- the line, the verdicts and the value history -------------------------------------------------------

function renderNav() {
  $("ply").textContent = `ply ${state.index} of ${state.line.length - 1}`;
  $("first").disabled = $("prev").disabled = state.index === 0;
  $("next").disabled = $("last").disabled = state.index >= state.line.length - 1;
}

function verdictOf(ply) {
  // the verdict on the move that led to line[ply]: verify's record for a loaded game, else the
  // analysis of the position before it (the same judgement: verify's verdict function)
  const entry = state.line[ply];
  if (!entry || !entry.move) return null;
  if (state.source) {
    const r = state.source.records.get(ply - 1);
    if (r && r.move === entry.move && r.fen === state.line[ply - 1].fen) return r.verdict;
  }
  const before = state.analyses.get(key(state.line[ply - 1].fen));
  const m = before && before.moves.find((x) => x.uci === entry.move);
  return m ? m.verdict : null;
}

function renderLine() {
  const ol = $("line");
  ol.innerHTML = "";
  $("line-empty").hidden = state.line.length > 1;
  state.line.forEach((entry, ply) => {
    if (ply === 0) return;
    const li = document.createElement("li");
    li.textContent = entry.move;
    li.dataset.ply = ply;
    li.dataset.number = moveNumber(ply);  // (written before the move by the style sheet)
    const v = verdictOf(ply);
    if (v === "inaccuracy" || v === "blunder") li.classList.add(v);
    if (ply === state.index) li.classList.add("current");
    li.addEventListener("click", () => go(ply));
    ol.appendChild(li);
  });
}

function renderVerdict() {
  const box = $("verdict");
  box.className = "";
  const src = state.source;
  const r = src && state.index < state.line.length - 1 ? src.records.get(state.index) : null;
  const next = state.line[state.index + 1];
  if (!r || !next || r.move !== next.move || r.fen !== current().fen) { box.hidden = true; return; }
  box.hidden = false;
  box.className = r.verdict || "";
  const shown = (k) => (r[k] !== null && r[k] !== undefined ? signed(r[k]) : `${signed(r[`${k}_lower`])}..${signed(r[`${k}_upper`])}`);
  let text = `${r.player}: ${r.move} is ${r.verdict === "inaccuracy" ? "an inaccuracy" : r.verdict === "blunder" ? "a blunder" : r.verdict || "not judged"}`;
  if (r.problem) text = `${r.player}: ${r.move}: ${r.problem}`;
  else text += ` (value after it ${shown("value")}; the position ${shown("best")}${r.best_move && r.best_move !== r.move ? `, best ${r.best_move}` : ""}${r.loss ? `, loses ${r.loss}` : ""})`;
  box.textContent = `verify: ${text}`;
}

function historyPoint(ply) {
  // the value after ply `ply` (X's side): the analysis of that position, or verify's record of the move
  const a = state.analyses.get(key(state.line[ply].fen));
  if (a) return "value" in a ? {lo: a.value, hi: a.value} : {lo: a.lower, hi: a.upper};
  const r = state.source ? state.source.records.get(ply - 1) : null;
  if (r && state.line[ply].move === r.move) {
    return r.value !== null && r.value !== undefined ? {lo: r.value, hi: r.value} : ("value_lower" in r ? {lo: r.value_lower, hi: r.value_upper} : null);
  }
  return null;
}

function moveNumber(ply) {
  // the move that led to line[ply] numbered as PGN numbers it, from the FEN before it: "12." for
  // X's move, "12..." for O's (the FEN: board, side, counter, move number)
  if (ply === 0) return "start";
  const fields = state.line[ply - 1].fen.trim().split(/\s+/);
  const number = parseInt(fields[3], 10) || 1;
  return fields[1] === "o" ? `${number}...` : `${number}.`;
}

function renderHistory() {
  const n = state.line.length;
  const box = $("history");
  if (n < 2 || !state.position) { box.innerHTML = ""; return; }
  const squares = state.position.rows * state.position.cols;
  const W = 560, H = 150, pad = 22, strip = 16;  // the chart, then a strip of move numbers under it
  const x = (ply) => pad + (W - 2 * pad) * (n === 1 ? 0 : ply / (n - 1));
  const y = (v) => H / 2 - (H / 2 - 20) * Math.max(-1, Math.min(1, v / squares));  // (clear of the two labels)
  const every = Math.ceil((n - 1) / 14);  // at most 15 numbers written along the axis
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H + strip}" role="img">`,
    `<rect x="0" y="0" width="${W}" height="${H / 2}" fill="#eef8ee"/><rect x="0" y="${H / 2}" width="${W}" height="${H / 2}" fill="#fbeeee"/>`,
    `<line x1="${pad}" y1="${H / 2}" x2="${W - pad}" y2="${H / 2}" stroke="#999"/>`,
    `<text class="side" x="4" y="10" font-size="10">X wins</text><text class="side" x="4" y="${H - 3}" font-size="10">O wins</text>`];
  const points = [];
  for (let ply = 0; ply < n; ply++) {
    const v = historyPoint(ply);
    if (!v) continue;
    const mid = (v.lo + v.hi) / 2;
    if (v.lo !== v.hi) parts.push(`<line class="bounds" x1="${x(ply)}" y1="${y(v.lo)}" x2="${x(ply)}" y2="${y(v.hi)}" stroke="#8888c0" stroke-width="3"/>`);
    points.push(`${x(ply).toFixed(1)},${y(mid).toFixed(1)}`);
  }
  if (points.length > 1) parts.push(`<polyline points="${points.join(" ")}" fill="none" stroke="#333" stroke-width="1.5"/>`);
  for (let ply = 0; ply < n; ply++) {
    const v = historyPoint(ply);
    const verdict = verdictOf(ply);
    const cls = verdict === "inaccuracy" || verdict === "blunder" ? verdict : "plain";
    const fill = {inaccuracy: "#e08a00", blunder: "#c62828", plain: "#333"}[cls];
    const cy = v ? y((v.lo + v.hi) / 2) : H / 2;
    const r = cls === "plain" ? 3 : 6;
    const number = moveNumber(ply);
    const title = `${number}${ply ? ` ${state.line[ply].move}` : ""}${v ? `: ${v.lo === v.hi ? signed(v.lo) : `${signed(v.lo)}..${signed(v.hi)}`}` : ""}`;
    parts.push(`<circle class="ply ${cls}${ply === state.index ? " current" : ""}" data-ply="${ply}" data-number="${number}" cx="${x(ply).toFixed(1)}" cy="${cy.toFixed(1)}" r="${r}" fill="${v ? fill : "#bbb"}"${ply === state.index ? ' stroke="#1f4fa8" stroke-width="2"' : ""}><title>${title}</title></circle>`);
    if (ply % every === 0) {
      parts.push(`<text class="move-number" data-ply="${ply}" x="${x(ply).toFixed(1)}" y="${H + 11}" font-size="10" text-anchor="middle">${number}</text>`);
    }
  }
  parts.push("</svg>");
  box.innerHTML = parts.join("");
  for (const c of box.querySelectorAll("circle")) c.addEventListener("click", () => go(parseInt(c.dataset.ply, 10)));
}

// -- the board's facts: stops, orthodox summary, canonical value ------------------------------------------

function renderFactsButton() {
  const pos = state.position;
  $("board-facts").innerHTML = '<button id="facts" type="button">stops, orthodox summary, canonical value</button>';
  $("facts").addEventListener("click", facts);
  const playable = pos.grid.join("").replace(/#/g, "").length;
  if (playable <= 12) facts();
}

async function facts() {
  const fen = state.position.fen;
  const box = $("board-facts");
  box.textContent = "solving the board with either side to move...";
  try {
    const f = await getJSON(`/api/board?${query({fen, rules: state.rules})}`);
    if (!state.position || state.position.fen !== fen) return;
    const rows = [["X to move", `${valueText(f.x)} (${f.x.words})`], ["O to move", `${valueText(f.o)} (${f.o.words})`],
      ["outcome class", f.outcome_class_words || "not proved"], ["orthodox summary", f.orthodox || f.orthodox_note],
      ["canonical value", f.canonical || f.canonical_note]];
    if (f.canonical) rows.push(["mean, temperature", `${f.mean}, ${f.temperature}`]);
    box.innerHTML = "<dl></dl>";
    const dl = box.querySelector("dl");
    for (const [k, v] of rows) {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v;
      dl.append(dt, dd);
    }
  } catch (err) { box.textContent = err.message; }
}

// -- loading positions and games ------------------------------------------------------------------

async function load(text) {
  const asked = ++state.asked;
  try {
    const answer = await getJSON(`/api/load?${query({rules: state.rules})}`, {method: "POST", body: text});
    if (asked !== state.asked) return;
    if (answer.kind === "position") {
      state.source = null;
      $("game").hidden = true;
      setLine([{fen: answer.position.fen, move: null}], 0);
      return;
    }
    state.source = {text, games: answer.games, pgn: answer.pgn};
    const select = $("games");
    select.innerHTML = "";
    for (const g of answer.games) {
      const o = document.createElement("option");
      o.value = g.number;
      o.textContent = `${g.label} (${g.moves.length} plies${g.result ? `, ${g.result}` : ""})`;
      select.appendChild(o);
    }
    $("game").hidden = false;
    if (answer.errors.length) say(answer.errors[0]);
    openGame(answer.games[0].number);
  } catch (err) { if (asked === state.asked) say(err.message); }
}

function openGame(number) {
  const g = state.source.games.find((x) => x.number === number);
  state.source.number = number;
  state.source.label = g.label;
  state.source.records = new Map();
  state.source.summary = null;
  setLine(g.fens.map((fen, k) => ({fen, move: k === 0 ? null : g.moves[k - 1]})), 0);
  verifyGame();
}

async function verifyGame() {
  const src = state.source;
  const number = src.number;
  $("download").disabled = true;
  $("verify-status").textContent = "verify: judging the moves...";
  const params = query({rules: state.rules, game: src.pgn ? number : null});
  try {
    const response = await api(`/api/verify?${params}`, {method: "POST", body: src.text});
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, {stream: true});
      let cut;
      while ((cut = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 1);
        if (line.trim() && state.source === src && src.number === number) record(JSON.parse(line));
      }
    }
  } catch (err) { $("verify-status").textContent = `verify: ${err.message}`; }
}

function record(r) {
  const src = state.source;
  if (r.summary) {
    src.summary = r.summary;
    const parts = r.summary.map((s) => `${s.player}: ${s.optimal} optimal, ${s.inaccuracies} inaccuracies, ${s.blunders} blunders${s.unsettled ? `, ${s.unsettled} unsettled` : ""}`);
    $("verify-status").textContent = `verify: ${parts.join("; ")}`;
    $("download").disabled = !src.pgn;
    return;
  }
  const m = /, ply (\d+)$/.exec(r.name || "");
  const ply = m ? parseInt(m[1], 10) : src.records.size;
  src.records.set(ply, r);
  $("verify-status").textContent = `verify: ${src.records.size} move(s) judged...`;
  renderLine();
  renderVerdict();
  renderHistory();
}

async function download() {
  const src = state.source;
  try {
    const response = await api(`/api/annotate?${query({rules: state.rules, game: src.number})}`, {method: "POST", body: src.text});
    const blob = await response.blob();
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "annotated.pgn";
    document.body.appendChild(a);
    a.click();
    a.remove();
  } catch (err) { say(err.message); }
}

async function newBoard() {
  const asked = ++state.asked;
  try {
    const pos = await getJSON(`/api/new?${query({rows: $("new-rows").value, cols: $("new-cols").value,
      blocks: $("new-blocks").value, start: $("new-start").value, turn: $("new-turn").value, rules: state.rules})}`);
    if (asked !== state.asked) return;
    state.source = null;
    $("game").hidden = true;
    setLine([{fen: pos.fen, move: null}], 0);
  } catch (err) { if (asked === state.asked) say(err.message); }
}

// -- start ------------------------------------------------------------------------------------

function start() {
  for (const id of ["new-rows", "new-cols"]) {
    const select = $(id);
    for (let k = 1; k <= 8; k++) {
      const o = document.createElement("option");
      o.value = o.textContent = `${k}`;
      select.appendChild(o);
    }
    select.value = "5";
  }
  $("board").addEventListener("click", (e) => { const sq = squareOf(e.target); if (sq) clickSquare(sq); });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(state.index - 1));
  $("next").addEventListener("click", () => go(state.index + 1));
  $("last").addEventListener("click", () => go(state.line.length - 1));
  $("pass").addEventListener("click", () => play("0000"));
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; $("board").classList.toggle("flipped", state.flipped); });
  $("stop").addEventListener("click", () => { if (state.job) api(`/api/stop?${query({job: state.job})}`, {method: "POST"}).catch(() => {}); });
  $("rules").addEventListener("change", () => { state.rules = $("rules").value; state.analyses.clear(); if (state.source) state.source.records = new Map(); show(); });
  $("load").addEventListener("click", () => load($("load-text").value));
  $("load-file").addEventListener("change", () => {
    const file = $("load-file").files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => { $("load-text").value = reader.result; load(reader.result); };
    reader.readAsText(file);
  });
  $("new").addEventListener("click", newBoard);
  $("games").addEventListener("change", () => openGame(parseInt($("games").value, 10)));
  $("download").addEventListener("click", download);
  document.addEventListener("keydown", (e) => {
    if (e.target.matches("input, textarea, select")) return;
    if (e.key === "ArrowLeft") { go(state.index - 1); e.preventDefault(); }
    else if (e.key === "ArrowRight") { go(state.index + 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(state.line.length - 1); e.preventDefault(); }
    else if (e.key === "f") $("flip").click();
  });
  window.addEventListener("hashchange", () => {  // a position given in the address: shown at once
    const given = new URLSearchParams(location.hash.slice(1));
    const fen = given.get("fen");
    if (!fen || (state.line.length && fen === current().fen && (given.get("rules") || state.rules) === state.rules)) return;
    if (given.get("rules")) { state.rules = given.get("rules"); $("rules").value = state.rules; }
    state.source = null;
    $("game").hidden = true;
    setLine([{fen, move: null}], 0);
  });
  // a position given in the address: ?fen=...&rules=... (the page writes it there), or #fen=... (older links)
  let params = new URLSearchParams(location.search);
  if (!params.get("fen") && location.hash.length > 1) params = new URLSearchParams(location.hash.slice(1));
  getJSON("/api/status").then((s) => {
    if (!s.ready) say("the solver is being compiled (once, a minute or two): the first answers may only be bounds");
    state.rules = params.get("rules") || s.rules;
    $("rules").value = state.rules;
    if (params.get("fen")) setLine([{fen: params.get("fen"), move: null}], 0);
    else newBoard();
  }).catch((err) => say(err.message));
}

document.addEventListener("DOMContentLoaded", start);
