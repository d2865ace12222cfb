// Monopoly Builder on the dashboard: draws the table the API describes and posts the
// players' actions. Every rule is the engine's: a refused action shows its reason.
"use strict";

const API = "/api/monopoly-builder";
const RESOURCES = ["dump_truck", "crane", "excavator", "boat"];
const RES_COLOUR = { dump_truck: "red", crane: "purple", excavator: "green", boat: "yellow" };
const RES_SHORT = { dump_truck: "DT", crane: "CR", excavator: "EX", boat: "BO" };
let state = null;
let shown = "";  // the state last drawn, so that an unchanged refresh redraws nothing
let selectedLot = null;

const $ = (id) => document.getElementById(id);
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}
const words = (s) => s.replaceAll("_", " ");

async function call(method, path, body) {
  const r = await fetch(API + path, {
    method, headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await r.json();
  if (!r.ok) {
    const detail = typeof data.detail === "string" ? data.detail
      : (data.detail || []).map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
    $("error").textContent = detail || `refused (${r.status})`;
    return null;
  }
  const text = JSON.stringify(data);
  if (method === "GET" && text === shown) return data;
  if (method !== "GET") $("error").textContent = "";
  shown = text;
  state = data;
  render();
  return data;
}
const act = (action, extra = {}) => call("POST", "/actions", { action, player: state.current, ...extra });

// -- the board ring and the island ------------------------------------------------
function cellOf(i) {  // GO bottom right, play goes left along the bottom
  if (i <= 8) return [9, 9 - i];
  if (i <= 16) return [9 - (i - 8), 1];
  if (i <= 24) return [1, 1 + (i - 16)];
  return [1 + (i - 24), 9];
}

function resourceChips(pile) {
  const span = el("span");
  for (const r of RESOURCES) {
    if (pile[r]) span.append(el("span", { class: `res c-${RES_COLOUR[r]}`, title: words(r), text: `${pile[r]} ${RES_SHORT[r]}` }));
  }
  return span;
}

function renderBoard() {
  const board = $("board");
  board.replaceChildren();
  for (const s of state.board) {
    const [row, col] = cellOf(s.index);
    const node = el("div", { class: "space", "data-index": s.index, title: s.label });
    node.style.gridRow = row;
    node.style.gridColumn = col;
    if (s.deed) {
      node.append(el("div", { class: `stripe c-${s.deed.colour}` }));
      node.append(el("div", { text: `${s.label} $${s.deed.price}` }));
      node.append(el("div", { class: "quiet", text: `${s.deed.roll}: ${s.deed.amount} ${RES_SHORT[s.deed.resource]}` }));
      if (s.owner) {
        node.classList.add("owned");
        node.style.setProperty("--owner", `var(--${s.owner})`);
        if (s.mortgaged) node.append(el("div", { class: "quiet", text: "mortgaged" }));
      }
    } else {
      node.append(el("div", { text: s.label }));
    }
    if (Object.values(s.ground).some((n) => n)) node.append(el("div", { class: "ground" }, resourceChips(s.ground)));
    const tokens = el("div", { class: "tokens" });
    for (const c of s.tokens) tokens.append(el("span", { class: `c-${c}`, title: c }));
    node.append(tokens);
    board.append(node);
  }
  const island = state.island;
  const grid = el("div", { class: "island", "data-testid": "island" });
  grid.style.gridTemplateColumns = `repeat(${island.width}, 1fr)`;
  const built = new Map(island.buildings.map((b) => [b.lot.join(","), b]));
  island.lots.forEach((row, y) => [...row].forEach((ch, x) => {
    const key = `${x},${y}`;
    if (ch !== "#") { grid.append(el("div", { class: "lot none" })); return; }
    const lot = el("div", { class: "lot", "data-lot": key, title: `lot (${x}, ${y})`,
      onclick: () => { selectedLot = [x, y]; render(); } });
    if (selectedLot && selectedLot[0] === x && selectedLot[1] === y) lot.classList.add("selected");
    lot.append(el("div", { class: "name", text: `${x},${y}` }));
    const b = built.get(key);
    if (b) {
      for (let f = 0; f < b.floors; f++) lot.append(el("div", { class: `floor c-${b.colour}` }));
      if (b.penthouse) lot.append(el("div", { class: "penthouse", title: "penthouse" }));
    }
    grid.append(lot);
  }));
  board.append(grid);
  $("standin").textContent = state.standin ? "(stand-in board and island: see the data files)" : "";
}

// -- players and score ------------------------------------------------------------
function renderPlayers() {
  const box = $("players");
  box.replaceChildren();
  for (const p of state.players) {
    const node = el("div", { class: "player" + (p.colour === state.current ? " current" : "") });
    node.style.setProperty("--pc", `var(--${p.colour})`);
    node.append(el("div", {}, el("b", { text: `${p.colour} (${p.token})` }),
      ` $${p.cash}, ${p.held} resources, ${p.blocks_left} blocks left`,
      p.in_jail ? ` - In Jail (${p.jail_attempts} tries)` : "",
      p.jail_cards ? ` - ${p.jail_cards} Get Out of Jail Free` : "",
      p.bankruptcies ? ` - bankrupt ${p.bankruptcies}x` : ""));
    node.append(el("div", {}, resourceChips(p.resources)));
    const deeds = el("div");
    for (const d of p.deeds) {
      const verb = d.mortgaged ? "unmortgage" : "mortgage";
      deeds.append(el("span", { class: "row" }, el("span", { class: `dot c-${d.colour}` }),
        `${d.name}${d.mortgaged ? " (mortgaged)" : ""} `,
        el("button", { text: `${verb} $${d.mortgaged ? d.unmortgage : d.mortgage}`,
          onclick: () => call("POST", "/actions", { action: verb, player: p.colour, deed: d.id }) })));
    }
    node.append(deeds);
    box.append(node);
  }
}

function renderScore() {
  $("score-title").textContent = state.over ? `Final ranking (${state.ended_by})` : "Score if the game ended now";
  const table = el("table", {}, el("tr", {}, ...["#", "player", "points", "buildings", "sets", "bonuses", "cash"].map((h) => el("th", { text: h }))));
  for (const s of state.score.ranking) {
    const bonuses = [s.billionaire_builder ? "Billionaire 3" : "", s.community_builder ? `Community 5 (${s.neighbourhood})` : ""].filter(Boolean).join(", ");
    table.append(el("tr", {}, el("td", { text: `${s.rank}${s.winner ? " *" : ""}` }), el("td", { text: s.colour }),
      el("td", { text: s.total }), el("td", { text: s.building_points.join("+") || "-" }),
      el("td", { text: s.sets.map(words).join(", ") || "-" }), el("td", { text: bonuses || "-" }), el("td", { text: `$${s.cash}` })));
  }
  $("score").replaceChildren(table);
  $("log").replaceChildren(...state.log.map((line) => el("div", { text: line })));
  $("log").scrollTop = 1e9;
}

// -- the action panel: only what the current step allows --------------------------
function select(options, value) {
  const s = el("select");
  for (const [v, label] of options) s.append(el("option", { value: v, text: label }));
  if (value !== undefined) s.value = value;
  return s;
}
const others = () => state.players.filter((p) => p.colour !== state.current).map((p) => [p.colour, p.colour]);
const resOptions = () => RESOURCES.map((r) => [r, words(r)]);
function pileInputs() {
  const inputs = Object.fromEntries(RESOURCES.map((r) => [r, el("input", { type: "number", min: 0, max: 20, placeholder: RES_SHORT[r], title: words(r) })]));
  const read = () => {
    const pile = {};
    for (const r of RESOURCES) if (+inputs[r].value > 0) pile[r] = +inputs[r].value;
    return Object.keys(pile).length ? pile : null;
  };
  return [Object.values(inputs), read];
}
function diceInputs() {
  const opts = [["", "?"], ...[1, 2, 3, 4, 5, 6].map((n) => [String(n), String(n)])];
  const a = select(opts), b = select(opts);
  const read = () => (a.value && b.value ? [+a.value, +b.value] : null);
  return [[a, b], read];
}
function row(...children) { return el("div", { class: "row" }, ...children); }

function renderActions() {
  const box = $("actions");
  box.replaceChildren();
  const me = state.players.find((p) => p.colour === state.current);
  $("turn").textContent = state.over ? "game over"
    : `${state.current}'s turn, step ${state.step_number} (${words(state.step)})` + (state.last_roll ? `, rolled ${state.last_roll.join("+")}` : "");
  if (state.over) { box.append(el("p", { text: `The game is over: ${state.ended_by}.` })); return; }
  const step = state.step;
  if (step === "start" || step === "roll_again") {
    if (step === "start" && me.in_jail) {
      box.append(row(el("button", { text: "Pay $50 fine", onclick: () => act("pay_fine") }),
        el("button", { text: "Use Get Out of Jail Free", onclick: () => act("use_jail_card") })));
    }
    if (step === "start" && !me.in_jail && me.held > 6) box.append(dropRow(me));
    const [dice, readDice] = diceInputs();
    box.append(row(el("button", { class: "primary", text: me.in_jail && step === "start" ? "Roll for doubles" : "Roll",
      onclick: () => act("roll", { dice: readDice() }) }), "dice (empty: rolled here):", ...dice));
  }
  if (step === "jail_drop") box.append(dropRow(me));
  if (step === "space") spaceActions(box, me);
  if (step === "space" && state.pending.includes("free_parking")) box.append(bankTradeRow("Free Parking: 2 for 1"));
  if (step === "trade") {
    box.append(bankTradeRow("Bank: 4 for 1"));
    box.append(dealForm(me));
  }
  if ((step === "trade" || step === "build") && !me.in_jail) box.append(buildForm());
  for (const c of state.rent_claims) {
    box.append(row(el("button", { text: `${c.owner} asks ${c.payer} for $${c.amount} rent (${c.name})`,
      onclick: () => call("POST", "/actions", { action: "ask_rent", player: c.owner, deed: c.deed }) })));
  }
  const nextLabel = { space: "Done with the space", trade: "Done trading: build", build: "End turn" }[step];
  if (nextLabel) {
    box.append(row(el("button", { text: nextLabel, onclick: () => act("next_step") }),
      step !== "build" ? el("button", { text: "End turn", onclick: () => act("end_turn") }) : ""));
  }
  box.append(row(el("button", { text: "Stop the game and score", onclick: () => act("stop", { reason: "the table stopped the game" }) })));
}

function dropRow(me) {
  const [inputs, read] = pileInputs();
  return row(`Holding ${me.held}: drop ${me.held - 6}`, ...inputs,
    el("button", { text: "Drop", onclick: () => act("drop", { resources: read() }) }));
}

function bankTradeRow(label) {
  const give = select(resOptions()), get = select(resOptions(), "boat");
  return row(label, "give", give, "get", get,
    el("button", { text: "Trade", onclick: () => act("bank_trade", { give: give.value, get: get.value }) }));
}

function spaceActions(box, me) {
  const here = state.board[me.position];
  if (state.pending.includes("buy_or_auction")) {
    const winner = select(state.players.map((p) => [p.colour, p.colour]));
    const price = el("input", { type: "number", min: 10, step: 5, value: 10 });
    box.append(row(el("button", { class: "primary", text: `Buy ${here.label} for $${here.deed.price}`, onclick: () => act("buy") })));
    box.append(row("Auction: won by", winner, "for $", price,
      el("button", { text: "Sold", onclick: () => act("auction", { winner: winner.value, price: +price.value }) }),
      el("button", { text: "Nobody bid", onclick: () => act("auction", { winner: null }) })));
  }
  if (state.pending.includes("roll_for_resources")) {
    const [dice, readDice] = diceInputs();
    box.append(row(el("button", { class: "primary", text: "Roll for resources", onclick: () => act("roll_for_resources", { dice: readDice() }) }), ...dice));
  }
  if (state.pending.includes("steal")) {
    const victim = select(others()), res = select(resOptions());
    box.append(row("Steal 1", res, "from", victim,
      el("button", { text: "Steal", onclick: () => act("steal", { victim: victim.value, resource: res.value }) })));
  }
  if (state.pending.includes("forced_trade")) {
    const mine = select(me.deeds.map((d) => [d.id, d.name]));
    const theirs = select(state.players.filter((p) => p !== me).flatMap((p) => p.deeds.map((d) => [d.id, `${d.name} (${p.colour})`])));
    box.append(row("Forced trade: give", mine, "take", theirs,
      el("button", { text: "Swap", onclick: () => act("forced_trade", { give: mine.value, take: theirs.value }) })));
  }
}

function dealForm(me) {
  const other = select(others());
  const side = (title) => {
    const cash = el("input", { type: "number", min: 0, step: 5, placeholder: "$" });
    const deeds = el("input", { placeholder: "deed ids, comma separated", size: 22 });
    const cards = el("input", { type: "number", min: 0, max: 2, placeholder: "cards" });
    const [inputs, read] = pileInputs();
    const node = el("fieldset", {}, el("legend", { text: title }), row("cash", cash, "deeds", deeds, "jail cards", cards), row(...inputs));
    const value = () => ({ cash: +cash.value || 0, deeds: deeds.value.split(",").map((s) => s.trim()).filter(Boolean),
      resources: read() || {}, jail_cards: +cards.value || 0 });
    return [node, value];
  };
  const [gives, readGives] = side(`${me.colour} gives`), [gets, readGets] = side("the other player gives");
  return el("details", {}, el("summary", { text: "Deal with another player" }), row("with", other), gives, gets,
    el("button", { text: "Make the deal", onclick: () => act("deal", { other: other.value, gives: readGives(), gets: readGets() }) }));
}

function buildForm() {
  const [inputs, read] = pileInputs();
  const where = selectedLot ? `lot (${selectedLot.join(", ")})` : "no lot chosen: click one";
  const build = (penthouse) => selectedLot
    ? act("build", { lot: selectedLot, pay: read(), penthouse })
    : ($("error").textContent = "choose a lot on the island first");
  return el("fieldset", {}, el("legend", { text: `Build on ${where}` }),
    row("pay with (empty: chosen for you)", ...inputs),
    row(el("button", { class: "primary", text: "Build a floor", onclick: () => build(false) }),
      el("button", { text: "Build the penthouse", onclick: () => build(true) })),
    el("div", { class: "quiet", text: Object.entries(state.needs).map(([k, v]) => `${k === "5" ? "penthouse" : "floor " + k}: ${v}`).join("; ") }));
}

function render() {
  renderBoard();
  renderPlayers();
  renderScore();
  renderActions();
}

// -- set-up, load, refresh --------------------------------------------------------
$("open-setup").addEventListener("click", () => { $("setup").hidden = !$("setup").hidden; });
$("start").addEventListener("click", async () => {
  const players = [...document.querySelectorAll("#setup input[type=checkbox]:checked")].map((c) => c.value);
  if (await call("POST", "/game", { players, seed: +$("seed").value || 0, bonus_ties: $("ties").value })) $("setup").hidden = true;
});
$("load").addEventListener("change", async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  try {
    await call("POST", "/state", { state: JSON.parse(await file.text()) });
  } catch (err) {
    $("error").textContent = `${file.name}: not a JSON file (${err.message})`;
  }
  e.target.value = "";
});
call("GET", "/state");
// Other devices at the table may act too: refresh now and then, never mid-typing.
setInterval(() => {
  if (!document.activeElement || !["INPUT", "SELECT"].includes(document.activeElement.tagName)) call("GET", "/state");
}, 4000);
