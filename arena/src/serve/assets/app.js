// arena serve: the script of the three pages. It asks the server's JSON
// endpoints for everything and computes nothing of the game: the viewer's
// positions are the rules crate's, sent by the server ply by ply.
"use strict";

const REFRESH_MS = 2000;

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function fixed(x, digits = 2) {
  return typeof x === "number" && isFinite(x) ? x.toFixed(digits) : "–";
}

async function getJson(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(url + ": " + response.status);
  return response.json();
}

function stateBadge(state) {
  return el("span", { class: "state state-" + state, "data-key": "state" }, state);
}

function timeControl(run) {
  const all = [...new Set(run.engines.map((e) => e.limits))];
  return all.join(" / ");
}

function llrText(run) {
  const s = run.summary;
  // A tune tests no hypothesis: its default-design LLR would mislead.
  if (run.mode === "tune" || s.llr === null || s.llr === undefined) return "–";
  return `${fixed(s.llr)} (${fixed(s.lower_bound)}, ${fixed(s.upper_bound)})`;
}

const LABELS = {
  name: "run", state: "state", engines: "engines", tc: "time control", games: "games", wdl: "W/D/L",
  pentanomial: "pentanomial", elo: "Elo", nelo: "nElo", llr: "LLR (bounds)",
};

// A cell of the runs table; on a phone each row becomes a card and the
// label shows before the value.
function cell(key, text, numeric) {
  return el("td", { class: numeric ? "num" : "", "data-key": key, "data-label": LABELS[key] }, text);
}

// ---- the list of runs ----

function runRow(run) {
  const s = run.summary;
  const sprt = run.sprt_design
    ? ` [${run.sprt_design.elo0}, ${run.sprt_design.elo1}] ${run.sprt_design.model}`
    : " (default design)";
  return el(
    "tr",
    { "data-run": run.index },
    el("td", { "data-key": "name", "data-label": LABELS.name }, el("a", { href: "/run/" + run.index }, run.name), " ",
      el("span", { class: "muted" }, run.mode), ...(run.error ? [el("div", { class: "error" }, run.error)] : [])),
    el("td", { "data-label": LABELS.state }, stateBadge(run.state)),
    cell("engines", run.engines.map((e) => e.name).join(" vs ")),
    cell("tc", timeControl(run)),
    cell("games", `${s.games} / ${s.planned}`, true),
    cell("wdl", s.wdl.join(" / "), true),
    cell("pentanomial", "[" + s.pentanomial.join(", ") + "]", true),
    cell("elo", `${fixed(s.elo)} ± ${fixed(s.elo_ci95)}`, true),
    cell("nelo", `${fixed(s.nelo)} ± ${fixed(s.nelo_ci95)}`, true),
    el("td", { class: "num", "data-key": "llr", "data-label": LABELS.llr, title: "SPRT" + sprt }, llrText(run)),
  );
}

async function runsPage() {
  const status = document.getElementById("status");
  const body = document.querySelector("#runs tbody");
  async function refresh() {
    try {
      const runs = await getJson("/api/runs");
      body.replaceChildren(...runs.map(runRow));
      status.textContent = `${runs.length} run(s), updated ${new Date().toLocaleTimeString()}`;
      document.body.dataset.loaded = "1";
    } catch (e) {
      status.textContent = "cannot reach the server: " + e.message;
    }
  }
  await refresh();
  setInterval(refresh, REFRESH_MS);
}

// ---- one run ----

function card(label, value, key) {
  return el("div", { class: "card" }, el("b", {}, label), el("span", { "data-key": key }, value));
}

async function runPage() {
  const index = location.pathname.split("/")[2];
  const status = document.getElementById("status");
  let shownGames = -1;
  async function refresh() {
    let run;
    try {
      run = await getJson("/api/run/" + index);
    } catch (e) {
      status.textContent = "cannot reach the server: " + e.message;
      return;
    }
    const s = run.summary;
    document.title = "arena: " + run.name;
    document.getElementById("title").textContent = `${run.name} (${run.mode})`;
    status.replaceChildren(stateBadge(run.state), ` updated ${new Date().toLocaleTimeString()}`);
    if (run.error) status.append(el("span", { class: "error" }, " " + run.error));
    const sprt = run.sprt_design
      ? `[${run.sprt_design.elo0}, ${run.sprt_design.elo1}] ${run.sprt_design.model}`
      : "none";
    document.getElementById("figures").replaceChildren(
      card("engines", run.engines.map((e) => e.name).join(" vs "), "engines"),
      card("time control", timeControl(run), "tc"),
      card("games", `${s.games} / ${s.planned}`, "games"),
      card("W/D/L", s.wdl.join(" / "), "wdl"),
      card("pentanomial", "[" + s.pentanomial.join(", ") + "]", "pentanomial"),
      card("Elo", `${fixed(s.elo)} ± ${fixed(s.elo_ci95)}`, "elo"),
      card("nElo", `${fixed(s.nelo)} ± ${fixed(s.nelo_ci95)}`, "nelo"),
      card("LLR", llrText(run), "llr"),
      card("SPRT", sprt, "sprt"),
    );
    document.querySelector("#players tbody").replaceChildren(
      ...s.players.map((p) =>
        el(
          "tr",
          { "data-engine": p.name },
          el("td", {}, p.name),
          el("td", { class: "num" }, `${fixed(p.elo)} ± ${fixed(p.elo_ci95)}`),
          el("td", { class: "num" }, p.games),
          el("td", { class: "num" }, `${p.wins} / ${p.draws} / ${p.losses}`),
          el("td", { class: "num" }, `${fixed(100 * p.score, 1)} %`),
        ),
      ),
    );
    const failures = document.querySelector("#failures tbody");
    failures.replaceChildren(
      ...Object.entries(s.failures).map(([engine, kinds]) => {
        const list = Object.entries(kinds).map(([k, n]) => `${k}: ${n}`).join(", ");
        return el("tr", { "data-engine": engine }, el("td", {}, engine), el("td", {}, list || "none"));
      }),
    );
    if (s.games !== shownGames) {
      shownGames = s.games;
      const tag = "?games=" + s.games;
      document.getElementById("llr").src = `/api/run/${index}/llr.svg${tag}`;
      document.getElementById("elo").src = `/api/run/${index}/elo.svg${tag}`;
      document.getElementById("llr-figure").hidden = !run.sprt_design;
      if (run.has_traces) {
        document.getElementById("traces-figure").hidden = false;
        document.getElementById("traces").src = `/api/run/${index}/traces.svg${tag}`;
      }
      const games = document.querySelector("#games tbody");
      games.replaceChildren(
        ...run.games_listed.map((g) =>
          el(
            "tr",
            { "data-game": g.game },
            el("td", {}, el("a", { href: `/run/${index}/game/${g.game}` }, g.game)),
            el("td", { class: "num" }, g.pair),
            el("td", {}, g.red),
            el("td", {}, g.blue),
            el("td", {}, g.result),
            el("td", {}, g.termination),
            el("td", { class: "num" }, g.plies),
          ),
        ),
      );
      document.getElementById("games-note").textContent =
        run.games_listed.length < s.games ? `(the latest ${run.games_listed.length} of ${s.games})` : `(${s.games})`;
    }
    document.body.dataset.loaded = "1";
  }
  await refresh();
  setInterval(refresh, REFRESH_MS);
}

// ---- the game viewer ----

const ROLE_NAMES = { W: "wazir", N: "knight", F: "ferz", D: "dabbaba", A: "alfil" };

function pieceNode(letter) {
  const upper = letter.toUpperCase();
  const side = letter === upper ? "red" : "blue";
  return el(
    "span",
    { class: `piece ${side} ${ROLE_NAMES[upper]}`, title: `${side} ${ROLE_NAMES[upper]}`, "data-piece": letter },
    upper,
  );
}

async function gamePage() {
  const parts = location.pathname.split("/");
  const run = parts[2];
  const id = parts[4];
  document.getElementById("run-link").href = "/run/" + run;
  let game;
  try {
    game = await getJson(`/api/run/${run}/game/${id}`);
  } catch (e) {
    document.getElementById("error").hidden = false;
    document.getElementById("error").textContent = "cannot load the game: " + e.message;
    return;
  }
  document.title = `arena: game ${game.game}`;
  document.getElementById("title").textContent = `game ${game.game}`;
  document.getElementById("players").replaceChildren(
    el("span", { class: "piece red inline" }, "R"), ` ${game.red}  vs  `,
    el("span", { class: "piece blue inline" }, "B"), ` ${game.blue}`,
  );
  document.getElementById("result").textContent =
    `${game.result} by ${game.termination} after ${game.plies} plies (red ${game.red_ms} ms, blue ${game.blue_ms} ms)`;
  if (game.error) {
    document.getElementById("error").hidden = false;
    document.getElementById("error").textContent = game.error;
  }

  // The board: row h at the top, row a (Red's home) at the bottom.
  const board = document.getElementById("board");
  const squares = {};
  for (let row = 7; row >= 0; row--) {
    board.append(el("span", { class: "label" }, String.fromCharCode(97 + row)));
    for (let col = 0; col < 8; col++) {
      const name = String.fromCharCode(97 + row) + (col + 1);
      const sq = el("div", { class: "sq" + ((row + col) % 2 === 0 ? " dark" : ""), "data-square": name });
      squares[name] = sq;
      board.append(sq);
    }
  }
  board.append(el("span", { class: "label" }));
  for (let col = 0; col < 8; col++) board.append(el("span", { class: "label" }, col + 1));

  const list = document.getElementById("moves");
  const items = game.moves.map((m) => {
    const li = el("li", { class: m.ply <= 2 ? "setup" : "", value: m.ply, "data-ply": m.ply, title: m.side }, m.text);
    li.addEventListener("click", () => show(m.ply));
    return li;
  });
  list.replaceChildren(...items);

  let ply = 0;
  const last = game.positions.length - 1;
  function show(target) {
    ply = Math.max(0, Math.min(last, target));
    const pos = game.positions[ply];
    const move = ply > 0 ? game.moves[ply - 1] : null;
    for (let i = 0; i < 64; i++) {
      const name = String.fromCharCode(97 + Math.floor(i / 8)) + ((i % 8) + 1);
      const sq = squares[name];
      const letter = pos.board[i];
      sq.dataset.piece = letter;
      sq.replaceChildren(...(letter ? [pieceNode(letter)] : []));
      sq.classList.toggle("last", !!move && (move.from === name || move.to === name));
    }
    for (const side of ["red", "blue"]) {
      const hand = document.getElementById("hand-" + side);
      const held = Object.entries(pos.hands[side]).filter(([, n]) => n > 0);
      hand.replaceChildren(
        el("span", { class: "side" }, side),
        ...held.map(([role, n]) =>
          el("span", { class: "held", "data-role": role, "data-count": n },
            pieceNode(side === "red" ? role : role.toLowerCase()), "×" + n),
        ),
      );
    }
    document.getElementById("ply").textContent = `ply ${ply} / ${last}`;
    document.getElementById("ply").title = `${pos.turn} to move`;
    document.body.dataset.ply = ply;
    items.forEach((li, i) => li.classList.toggle("current", i + 1 === ply));
    // Keep the current move in sight inside the list, never moving the page.
    if (ply > 0) {
      const li = items[ply - 1];
      if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
      }
    }
  }
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("back").addEventListener("click", () => show(ply - 1));
  document.getElementById("forward").addEventListener("click", () => show(ply + 1));
  document.getElementById("last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (e) => {
    const moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last };
    if (e.key in moves) {
      e.preventDefault();
      show(moves[e.key]);
    }
  });
  show(0);
  document.body.dataset.loaded = "1";
}

const pages = { runs: runsPage, run: runPage, game: gamePage };
pages[document.body.dataset.page]();
