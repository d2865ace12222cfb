// The table page: draws the state the server sends (server-sent events) and turns the
// players' clicks into API calls. No rule is computed here: the server says what is
// legal, what may be bought and who has won.
import { PalaceView } from "/static/palace3d.js";

const $ = (s) => document.querySelector(s);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
};
const words = (s) => String(s).replaceAll("_", " ");
// An alternative reading's button names all that may differ from the piece read: its
// place, an arch's axis, a decoration's colour (a decoration that looks another colour
// than its start is offered in the colour seen).
const alternativeName = (a) => `${words(a.kind)} ${a.x},${a.y},${a.z}`
  + (a.kind === "arch" ? ` along ${a.axis}` : "") + (a.color ? ` ${words(a.color)}` : "");

let state = null, picks = new Set(), selected = null;
const view = new PalaceView($("#palace3d"), pick);
window.palaceView = view;

async function api(method, path, body) {
  $("#error").textContent = "";
  const r = await fetch(path, { method, headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const detail = typeof data.detail === "string" ? data.detail
      : Array.isArray(data.detail) ? data.detail.map((d) => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ")
      : `refused (${r.status})`;
    $("#error").textContent = detail;
    return null;
  }
  render(data);
  return data;
}

function pick(hit) {
  if (hit.piece) {
    const p = hit.piece;
    selected = p.draft ? p.id : null;
    const f = $("#editor");
    for (const k of ["kind", "x", "y", "z", "axis", "color"]) if (p[k] !== undefined) f[k].value = p[k];
    f.id.value = p.draft ? p.id : "";
    if (!p.draft) $("#error").textContent = p.kind === "corner" ? "corner bricks never move"
      : `${p.kind} ${p.id} was placed in ${p.turn ? "turn " + p.turn : "the set-up"}; undo that turn to change it`;
  } else {
    const [x, y] = hit.cell, f = $("#editor");
    f.x.value = x; f.y.value = y; f.z.value = stackTop(x, y); f.id.value = ""; selected = null;
  }
  if (state) redraw();
}

function stackTop(x, y) {
  let top = 0;
  const all = [...state.palace, ...(state.draft ? state.draft.pieces.map((d) => d.piece) : [])];
  for (const p of all) {
    const w = p.kind === "arch" && p.axis !== "y" ? 4 : p.kind === "corner" ? 2 : 1;
    const d = p.kind === "arch" && p.axis === "y" ? 4 : p.kind === "corner" ? 2 : 1;
    if (x >= p.x && x < p.x + w && y >= p.y && y < p.y + d)
      top = Math.max(top, p.z + (p.kind === "column" ? 3 : 1));
  }
  return top;
}

function marks() {
  const d = state.draft;
  return { offending: new Set(d ? d.offending : []), doubtful: new Set(d ? d.doubtful : []),
    selected };
}
function redraw() { view.update(state, marks()); renderDraft(); }

function render(s) {
  if (state && s.version < state.version && s.game_id === state.game_id) return;
  if (!state || s.game_id !== state.game_id || (state.draft && !s.draft)) picks = new Set();
  state = s;
  if (selected && !(s.draft && s.draft.pieces.some((d) => d.piece.id === selected))) selected = null;
  const sync = $("#sync");
  sync.textContent = { ready: "in sync", pending: "turn read", out_of_sync: "out of sync", over: "game over" }[s.sync];
  sync.className = "badge " + s.sync;
  $("#camera-state").textContent = "camera " + s.camera.state + (s.camera.detail ? ": " + s.camera.detail : "");
  const active = s.players[s.current];
  $("#round").textContent = s.is_over || s.ended ? "" : `round ${s.round} · ${active.name} to play`;
  $("#turn-player").textContent = s.sync === "over" ? "" : `— ${active.name}`;
  view.update(s, marks());
  renderDraft(); renderMarket(); renderPlayers(); renderTray(); renderTurns();
}

function renderDraft() {
  const s = state, d = s.draft, note = $("#sync-note");
  const text = {
    ready: "Waiting for the next staircase: the camera reads it when the board settles, or add its pieces below.",
    pending: "The staircase was read and is legal. Pick cards with its credits, then confirm.",
    out_of_sync: "Out of sync: check the pieces marked below, correct them or say the reading is right.",
    over: "The game is over.",
  }[s.sync];
  note.textContent = d && d.notice ? `${text} ${d.notice}` : text;
  note.className = "note show " + s.sync;
  const report = $("#report"); report.replaceChildren();
  if (d) {
    const legal = d.report && d.report.legal;
    d.words.forEach((w, i) => report.append(el("li", {
      class: i === 0 ? "verdict " + (legal ? "legal" : "illegal") : (w.startsWith("[") ? "violation" : "") }, w)));
    if (d.reason) report.append(el("li", { class: "violation" }, "camera: " + d.reason));
  }
  const table = $("#draft-pieces"); table.replaceChildren();
  if (d && d.pieces.length) {
    table.append(el("tr", {}, el("th", {}, "piece"), el("th", {}, "where"), el("th", {}, "sure"), el("th", {}, "")));
    for (const dp of d.pieces) {
      const p = dp.piece;
      const cls = [dp.doubtful ? "doubtful" : "", d.offending.includes(p.id) ? "offending" : "",
        selected === p.id ? "selected" : ""].join(" ");
      const alts = dp.alternatives.map((a) => el("button", { class: "ghost", title: "use this reading",
        onclick: () => api("POST", "/api/turn/corrections", { action: "replace", id: p.id, piece: a }) },
        alternativeName(a)));
      table.append(el("tr", { class: cls, "data-piece": p.id },
        el("td", {}, `${words(p.kind)} ${p.id}`, p.color ? el("span", { class: "quiet" }, ` ${words(p.color)}`) : null),
        el("td", {}, `${p.x},${p.y} level ${p.z}${p.kind === "arch" ? " along " + p.axis : ""}`),
        el("td", {}, dp.doubtful ? "?" : `${Math.round(dp.confidence * 100)}%`),
        el("td", {}, el("button", { class: "ghost", onclick: () => pick({ piece: { ...p, draft: true } }) }, "edit"), ...alts)));
    }
  }
  $("#frog").checked = !!(d && d.frog);
  $("#frog").disabled = !d || s.sync === "over" || !s.settings.frog;
  $("#accept").disabled = !d || !(d.doubtful.length || d.uncertain);
  $("#confirm").disabled = !d || !(d.report && d.report.legal) || s.sync === "over";
  $("#pass").disabled = s.sync === "over";
  $("#discard").disabled = !d;
  $("#edit-apply").disabled = !selected; $("#edit-remove").disabled = !selected;
  $("#edit-id").textContent = selected || "—";
  $("#edit-add").disabled = s.sync === "over";
}

function renderMarket() {
  const s = state, d = s.draft, credits = d && d.report && d.report.legal ? d.report.credits : 0;
  const spent = [...picks].reduce((t, name) => t + (s.market.find((m) => m.pile === name)?.top?.cost || 0), 0);
  $("#credits").textContent = d && d.report && d.report.legal
    ? `${credits} credit${credits === 1 ? "" : "s"} to spend on ${words(d.report.start_color)} or multicolour cards · ${spent} picked` : "";
  const box = $("#market"); box.replaceChildren();
  for (const m of s.market) {
    const c = m.top, can = m.allowed && s.sync === "pending" || (m.allowed && d && d.report && d.report.legal);
    const deliveries = c ? Object.entries(c.one_time).map(([k, v]) => `+${v} ${words(k)}`).join(" ") : "";
    const recurring = c ? Object.entries(c.recurring).map(([k, v]) => `${v} ${words(k)}`).join(" ") : "";
    box.append(el("div", {
      class: `pile ${c ? c.color : ""} ${can ? "" : "disabled"} ${picks.has(m.pile) ? "picked" : ""}`,
      "data-pile": m.pile, title: c ? `card ${c.id}` : "empty",
      onclick: () => { if (!can) return; picks.has(m.pile) ? picks.delete(m.pile) : picks.add(m.pile); renderMarket(); },
    }, el("span", { class: "count" }, `×${m.count}`),
      el("div", { class: "cost" }, c ? `${c.cost}` : "–"),
      el("div", {}, c ? `${c.bananas} bananas` : "empty"),
      el("div", { class: "quiet" }, deliveries), el("div", { class: "quiet" }, recurring ? "each turn: " + recurring : "")));
  }
}

function renderPlayers() {
  const s = state, box = $("#players"); box.replaceChildren();
  for (const p of s.players) {
    box.append(el("div", { class: "player" + (p.active ? " active" : ""), "data-seat": p.seat },
      el("div", { class: "top" }, el("span", {}, p.name + (p.active ? " · to play" : "")),
        el("span", { class: "score", "data-testid": `score-${p.seat}` }, `${p.score} bananas`)),
      el("div", { class: "meta" }, `in hand: ${p.pieces.arch} arches, ${p.pieces.brick} bricks, ${p.pieces.column} columns · ` +
        `${p.card_bananas} from cards, ${p.bonus_cards} bonus card(s)`),
      el("div", { class: "chips" }, ...p.visible.map((c) => el("span", { class: "chip " + c.color }, `${c.id}: ${c.bananas} bananas`)),
        ...p.trophies.map((t) => el("span", { class: "chip trophy" }, t)))));
  }
  const r = $("#ranking"); r.replaceChildren();
  if (s.sync === "over") {
    r.append(el("strong", {}, "Final ranking"), el("ol", {}, ...s.ranking.map((x) => el("li", {
      class: x.winner ? "winner" : "" }, `${s.players[x.seat].name}: ${x.score} bananas${x.winner ? " — wins" : ""} (rank ${x.rank})`))));
    if (s.tie_break) r.append(el("div", { class: "quiet" }, s.tie_break));
    if (s.end_reason) r.append(el("div", { class: "quiet" }, "Ended: " + s.end_reason));
  }
  $("#end-game").disabled = s.sync === "over";
}

function renderTray() {
  const t = state.tray, hd = state.highest_decoration;
  $("#tray").replaceChildren(
    el("span", { class: "chip" }, `${t.arch} arches`), el("span", { class: "chip" }, `${t.brick} bricks`),
    el("span", { class: "chip" }, `${t.column} columns`), el("span", { class: "chip" }, `${t.bonus_cards} bonus cards`),
    ...Object.entries(t.decorations).map(([c, n]) => el("span", { class: "chip " + c },
      `${n} ${words(c)} decorations · highest at ${hd[c] === null ? "—" : "level " + hd[c]}`)));
}

function renderTurns() {
  const box = $("#turns"); box.replaceChildren();
  for (const t of [...state.turns].reverse()) {
    const name = state.players[t.seat]?.name || `seat ${t.seat}`;
    const res = t.result, summary = t.kind === "pass" ? "passed"
      : `${t.report.credits} credits, ${res.cards.length} card(s)${res.bonus_card ? ", bonus card" : ""}${res.trophies.length ? ", " + res.trophies.join(", ") : ""}`;
    const got = Object.entries(res.received).filter(([, v]) => v).map(([k, v]) => `${v} ${words(k)}`).join(", ");
    box.append(el("li", { class: t.undone ? "undone" : "", value: t.number, "data-turn": t.number },
      `${name} (round ${t.round}): ${summary}; delivered ${got || "nothing"}${res.short ? " (the tray ran short)" : ""} `,
      t.undone ? null : el("button", { class: "ghost", "data-testid": `undo-${t.number}`,
        onclick: () => { if (confirm(`Undo turn ${t.number} and every later one?`)) api("POST", `/api/turns/${t.number}/undo`); } }, "undo"),
      t.undone ? null : el("a", { href: `/api/turns/${t.number}/palace.ldr`, class: "small" }, " .ldr")));
  }
}

function editorPiece() {
  const f = $("#editor");
  return { kind: f.kind.value, x: +f.x.value, y: +f.y.value, z: +f.z.value, axis: f.axis.value, color: f.color.value };
}
$("#edit-add").onclick = () => api("POST", "/api/turn/corrections", { action: "add", piece: editorPiece() });
$("#edit-apply").onclick = () => {
  const p = editorPiece();
  api("POST", "/api/turn/corrections", { action: "replace", id: selected, piece: p });
};
$("#edit-remove").onclick = async () => {
  if (await api("POST", "/api/turn/corrections", { action: "remove", id: selected })) { selected = null; redraw(); }
};
$("#frog").onchange = (e) => api("POST", "/api/turn/corrections", { action: "frog", value: e.target.checked });
$("#accept").onclick = () => api("POST", "/api/turn/corrections", { action: "accept" });
const freeArches = () => ($("#free-arches").value === "" ? null : +$("#free-arches").value);
$("#confirm").onclick = async () => {
  if (await api("POST", "/api/turn/confirm", { seat: state.current, purchases: [...picks], free_arches: freeArches() })) {
    picks = new Set(); selected = null;
  }
};
$("#pass").onclick = () => api("POST", "/api/turn/pass", { seat: state.current, free_arches: freeArches() });
$("#discard").onclick = () => api("DELETE", "/api/turn");
$("#end-game").onclick = () => { if (confirm("End the game now and rank the players?")) api("POST", "/api/game/end", {}); };
$("#open-setup").onclick = () => $("#setup").showModal();
// The map read by the camera: its picture and how many studs it could not see, before
// the players start on it (the server keeps the reading for `map: "camera"`). A player
// who sees a stud, a region or a whole ink read wrong paints it as the card has it.
let mapTurn = 0;
function showCameraMap(data) {
  mapTurn = data.turn;
  $("#camera-map-img").src = `data:image/png;base64,${data.png}`;
  $("#camera-map-words").textContent = `${data.known} studs read, ${data.unknown} unknown `
    + `(magenta: not read; a staircase started there names it by its decoration); from ${data.fused} of `
    + `${data.pictures} settled pictures.`;
  $("#camera-map").hidden = false;
  $("#setup-form").map.value = "camera";
}
async function mapCall(path, body) {
  const error = $("#camera-map-error");
  const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    error.textContent = typeof data.detail === "string" ? data.detail : `refused (${r.status})`;
    return;
  }
  error.textContent = "";
  showCameraMap(data);
}
$("#read-map").onclick = async () => {
  const button = $("#read-map");
  button.disabled = true; $("#camera-map-error").textContent = "reading the map from the camera…";
  try { await mapCall("/api/map/read"); } finally { button.disabled = false; }
};
// A click paints with the reach chosen; with "one stud", a drag paints every stud it
// crosses (the camera's scattered mistakes). Requests go one after another, so the
// picture shown is always the last correction's.
let painting = false, lastStud = "", paints = Promise.resolve();
function paintAt(e) {
  const img = $("#camera-map-img"), f = $("#setup-form"), n = 32;
  const u = Math.max(0, Math.min(n - 1, Math.floor(e.offsetX / img.clientWidth * n)));
  const v = Math.max(0, Math.min(n - 1, Math.floor(e.offsetY / img.clientHeight * n)));
  // The picture shows the card as the camera sees it; the server speaks board studs.
  const [x, y] = [[u, n - 1 - v], [n - 1 - v, n - 1 - u], [n - 1 - u, v], [v, u]][mapTurn];
  if (`${x},${y}` === lastStud) return;
  lastStud = `${x},${y}`;
  const body = { x, y, ink: f.paint_ink.value, reach: f.paint_reach.value };
  paints = paints.then(() => mapCall("/api/map/paint", body));
}
$("#camera-map-img").addEventListener("pointerdown", (e) => {
  e.preventDefault(); painting = true; lastStud = ""; paintAt(e);
});
$("#camera-map-img").addEventListener("pointermove", (e) => {
  if (painting && $("#setup-form").paint_reach.value === "stud") paintAt(e);
});
$("#undo-paint").onclick = () => { paints = paints.then(() => mapCall("/api/map/undo")); };
for (const end of ["pointerup", "pointerleave", "pointercancel"]) {
  $("#camera-map-img").addEventListener(end, () => { painting = false; });
}
$("#setup-form").addEventListener("submit", async (e) => {
  if (e.submitter?.value !== "go") return;
  const f = e.target, body = {
    players: +f.players.value, map: f.map.value,
    names: f.names.value.split(",").map((n) => n.trim()).filter(Boolean).slice(0, 4),
    rules: { tie_earns_credit: f.tie_earns_credit.checked, bonus_counts_existing: f.bonus_counts_existing.checked,
      butterfly: f.butterfly.checked, frog: f.frog.checked,
      name_unknown_start: f.name_unknown_start.checked } };
  if (f.mapfile.files.length) body.map_data = JSON.parse(await f.mapfile.files[0].text());
  api("POST", "/api/game", body);
});

// Live updates; each webcam's picture is fetched one at a time, so a slow link skips
// frames. The second webcam's view shows once it sends a picture.
function liveImage(img, webcam, shown) {
  let loading = false, wanted = 0;
  const next = () => {
    if (loading || !wanted) return;
    loading = true; const n = wanted; wanted = 0;
    img.src = `/api/camera.jpg?webcam=${webcam}&n=${n}`;
  };
  img.onload = () => { loading = false; shown(); next(); };
  img.onerror = () => { loading = false; next(); };
  return (n) => { wanted = n; next(); };
}
const firstFrame = liveImage($("#camera"), 1, () => { $("#camera-empty").style.display = "none"; });
const secondFrame = liveImage($("#second-camera"), 2, () => { $("#second-camera-box").hidden = false; });
function connect() {
  const es = new EventSource("/api/events");
  es.addEventListener("state", (e) => render(JSON.parse(e.data)));
  es.addEventListener("frame", (e) => firstFrame(+e.data));
  es.addEventListener("second_frame", (e) => secondFrame(+e.data));
  es.onerror = () => { es.close(); setTimeout(connect, 1500); };
}
fetch("/api/state").then((r) => r.json()).then(render).then(connect);
