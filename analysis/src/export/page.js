// The hexsight report's viewer: draws the map once from data.js and answers every
// click from the data hexsight computed (export/page.rs documents its format). No
// rule of line of sight lives here: verdicts, blind hexes, blockers and reasons are
// read from the data, never worked out.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  const say = (t) => { status.textContent = t; };

  /** Unpacks window.HEXSIGHT_DATA (base64 of a gzip stream): the header and the blobs. */
  async function load() {
    const b64 = window.HEXSIGHT_DATA;
    if (typeof b64 !== "string") throw new Error("data.js is missing: keep it in the folder beside index.html");
    if (typeof DecompressionStream !== "function") throw new Error("this browser cannot unpack the data (no DecompressionStream); use a current Chrome, Firefox or Safari");
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const raw = new Uint8Array(await new Response(stream).arrayBuffer());
    const magic = new TextDecoder().decode(raw.subarray(0, 8));
    if (magic !== "HXSPAGE1") throw new Error("data.js is not hexsight page data of this version");
    const h = new DataView(raw.buffer).getUint32(8, true);
    const header = JSON.parse(new TextDecoder().decode(raw.subarray(12, 12 + h)));
    const blobs = {};
    for (const [name, [at, len]] of Object.entries(header.blobs)) blobs[name] = raw.subarray(at, at + len);
    return { header, blobs, unpacked: raw.length };
  }

  let D, B, M, N;
  const S = {
    scale: 20, ox: 0, oy: 0, // screen = unit * scale + offset (CSS pixels)
    sel: -1, pt: -1, cursor: -1, layer: "viewshed",
    show: { zones: true, network: false, units: true, labels: true },
  };
  let rowOf, whyRowOf, stride, corners, grid;

  function start(data) {
    D = data.header; B = data.blobs; M = D.map; N = M.n;
    stride = Math.ceil(N / 8);
    rowOf = index(D.observers);
    whyRowOf = index(D.explained);
    corners = M.corners;
    buildGrid();
    buildLayers();
    $("about-data").textContent = (data.unpacked / 1048576).toFixed(1) + " MB unpacked in the browser in " + Math.round(performance.now() - t0) + " ms";
    const left = D.omitted.length ? "Left out: " + D.omitted.join("; ") + "." : "Carried whole: every hex's viewshed" + (D.explained ? "" : ", and the blocker and reason of every line") + ".";
    $("about-omitted").textContent = left;
    if (D.explained) $("about-omitted").textContent += " Blockers and reasons are carried for the key hexes " + D.explained.map((i) => M.labels[i]).join(", ") + ".";
    if (D.change) $("change").hidden = false;
    fit();
    setupInput();
    window.addEventListener("resize", () => { sizeCanvases(); drawAll(); });
    sizeCanvases();
    drawAll();
    if (D.keys.length) select(D.keys[0], null); else info();
    say("Click or tap a hex to see what it sees; point at another for the line.");
    document.body.dataset.ready = "1";
  }

  /** Map index to row in a blob (-1: not carried); null means every hex. */
  function index(list) {
    const r = new Int32Array(N).fill(-1);
    if (list === null) { for (let i = 0; i < N; i++) r[i] = i; } else list.forEach((i, k) => { r[i] = k; });
    return r;
  }

  // --- geometry: hex centres from the data, nearest centre for picking ---
  const cx = (i) => M.centres[2 * i], cy = (i) => M.centres[2 * i + 1];
  let bounds;
  function buildGrid() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < N; i++) { x0 = Math.min(x0, cx(i)); y0 = Math.min(y0, cy(i)); x1 = Math.max(x1, cx(i)); y1 = Math.max(y1, cy(i)); }
    bounds = { x0: x0 - 1, y0: y0 - 1, x1: x1 + 1, y1: y1 + 1 };
    const cell = 2, cols = Math.ceil((bounds.x1 - bounds.x0) / cell) + 1, rows = Math.ceil((bounds.y1 - bounds.y0) / cell) + 1;
    grid = { cell, cols, rows, at: Array.from({ length: cols * rows }, () => []) };
    for (let i = 0; i < N; i++) grid.at[gridKey(cx(i), cy(i))].push(i);
  }
  function gridKey(x, y) {
    const c = Math.min(grid.cols - 1, Math.max(0, Math.floor((x - bounds.x0) / grid.cell)));
    const r = Math.min(grid.rows - 1, Math.max(0, Math.floor((y - bounds.y0) / grid.cell)));
    return r * grid.cols + c;
  }
  /** The hex under a point in map units, or -1 off the map. */
  function hexAt(x, y) {
    let best = -1, bd = Infinity;
    const c = Math.floor((x - bounds.x0) / grid.cell), r = Math.floor((y - bounds.y0) / grid.cell);
    for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
      const rr = r + dr, cc = c + dc;
      if (rr < 0 || cc < 0 || rr >= grid.rows || cc >= grid.cols) continue;
      for (const i of grid.at[rr * grid.cols + cc]) {
        const d = (cx(i) - x) ** 2 + (cy(i) - y) ** 2;
        if (d < bd) { bd = d; best = i; }
      }
    }
    return bd <= 1.0001 ? best : -1;
  }
  const sx = (x) => x * S.scale + S.ox, sy = (y) => y * S.scale + S.oy;
  function hexPath(p, i, k) {
    const x = cx(i), y = cy(i), s = S.scale * (k || 1);
    p.moveTo(sx(x) + corners[0] * s, sy(y) + corners[1] * s);
    for (let c = 1; c < 6; c++) p.lineTo(sx(x) + corners[2 * c] * s, sy(y) + corners[2 * c + 1] * s);
    p.closePath();
  }
  function onScreen(i) {
    const x = sx(cx(i)), y = sy(cy(i)), m = S.scale * 1.2;
    return x > -m && y > -m && x < W + m && y < H + m;
  }

  // --- canvases ---
  const layers = ["c-ground", "c-over", "c-top", "c-ui"].map($);
  const ctx = layers.map((c) => c.getContext("2d"));
  let W = 0, H = 0;
  function sizeCanvases() {
    const box = $("mapbox"), dpr = window.devicePixelRatio || 1;
    W = box.clientWidth; H = box.clientHeight;
    layers.forEach((c, k) => {
      c.width = Math.round(W * dpr); c.height = Math.round(H * dpr);
      c.style.width = W + "px"; c.style.height = H + "px";
      ctx[k].setTransform(dpr, 0, 0, dpr, 0, 0);
    });
  }
  function fit() {
    const box = $("mapbox");
    const w = box.clientWidth || 800, h = box.clientHeight || 600;
    S.scale = Math.min((w - 20) / (bounds.x1 - bounds.x0), (h - 20) / (bounds.y1 - bounds.y0));
    S.ox = (w - (bounds.x1 - bounds.x0) * S.scale) / 2 - bounds.x0 * S.scale;
    S.oy = (h - (bounds.y1 - bounds.y0) * S.scale) / 2 - bounds.y0 * S.scale;
  }
  function zoomAt(f, px, py) {
    const ns = Math.max(0.5, Math.min(400, S.scale * f));
    f = ns / S.scale;
    S.ox = px - (px - S.ox) * f; S.oy = py - (py - S.oy) * f; S.scale = ns;
    drawAll();
  }
  let pending = 0;
  function drawAll() {
    if (pending) return;
    pending = requestAnimationFrame(() => { pending = 0; drawGround(); drawTop(); drawOver(); drawUi(); });
  }

  /** Ground: each hex its terrain colour lightened with its level (the pictures' palette). */
  function drawGround() {
    const g = ctx[0];
    g.clearRect(0, 0, W, H);
    const paths = M.palette.map(() => new Path2D());
    for (let i = 0; i < N; i++) if (onScreen(i)) hexPath(paths[M.ground[i]], i);
    paths.forEach((p, k) => { g.fillStyle = M.palette[k]; g.fill(p); });
  }

  /** Over the colour layer: terrain pips, the grid, slopes and hexsides, markers, zones, the units' network, units, labels. */
  function drawTop() {
    const g = ctx[2], s = S.scale;
    g.clearRect(0, 0, W, H);
    if (s >= 6) {
      const pips = M.terrains.map(() => new Path2D());
      for (let i = 0; i < N; i++) {
        if (M.terrain[i] === 0 || !onScreen(i)) continue;
        const p = pips[M.terrain[i]], x = sx(cx(i)), y = sy(cy(i)) + s * 0.12, k = 0.32 * s;
        p.moveTo(x + corners[0] * k, y + corners[1] * k);
        for (let c = 1; c < 6; c++) p.lineTo(x + corners[2 * c] * k, y + corners[2 * c + 1] * k);
        p.closePath();
      }
      pips.forEach((p, k) => { g.fillStyle = M.terrains[k].colour; g.fill(p); });
    }
    if (s >= 4) {
      const p = new Path2D();
      for (let i = 0; i < N; i++) if (onScreen(i)) hexPath(p, i);
      g.strokeStyle = "rgba(0,0,0,0.16)"; g.lineWidth = 0.8; g.stroke(p);
    }
    const byStyle = M.edge_styles.map(() => new Path2D());
    for (let e = 0; e < M.edges.length; e += 3) {
      const i = M.edges[e], d = M.edges[e + 1];
      if (!onScreen(i)) continue;
      const p = byStyle[M.edges[e + 2]], x = sx(cx(i)), y = sy(cy(i)), d2 = (d + 1) % 6;
      p.moveTo(x + corners[2 * d] * s, y + corners[2 * d + 1] * s);
      p.lineTo(x + corners[2 * d2] * s, y + corners[2 * d2 + 1] * s);
    }
    g.lineCap = "round";
    byStyle.forEach((p, k) => {
      const st = M.edge_styles[k];
      g.strokeStyle = st.colour; g.globalAlpha = st.alpha;
      g.lineWidth = Math.min(st.width[2], Math.max(st.width[1], s * st.width[0]));
      g.stroke(p);
    });
    g.globalAlpha = 1;
    for (const m of M.markers) {
      if (!onScreen(m.hex)) continue;
      dot(g, sx(cx(m.hex)) + s * 0.45, sy(cy(m.hex)) + s * 0.35, Math.max(s * 0.22, 2), m.colour, true);
    }
    if (S.show.zones) drawZones(g);
    if (S.show.network) drawNetwork(g);
    if (S.show.units) drawUnits(g);
    if (S.show.labels && s >= 15) {
      g.fillStyle = "rgba(20,20,20,0.8)"; g.textAlign = "center";
      g.font = Math.min(s * 0.42, 12) * 1.15 + "px Ubuntu, 'DejaVu Sans', sans-serif";
      for (let i = 0; i < N; i++) if (onScreen(i)) g.fillText(M.labels[i], sx(cx(i)), sy(cy(i)) - s * 0.48);
    }
  }
  function dot(g, x, y, r, fill, outline) {
    g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.fillStyle = fill; g.fill();
    if (outline) { g.strokeStyle = "#000"; g.lineWidth = 1.5; g.stroke(); }
  }
  const sideColour = (name) => (M.sides.find((x) => x.name === name) || { colour: "#dc1e1e" }).colour;
  function drawZones(g) {
    const s = S.scale;
    D.zones.forEach((z) => {
      const inside = new Set(z.hexes), p = new Path2D();
      for (const i of z.hexes) {
        for (let d = 0; d < 6; d++) {
          // A side of the zone's outline: no zone hex across it.
          const d2 = (d + 1) % 6;
          const mx = cx(i) + (corners[2 * d] + corners[2 * d2]), my = cy(i) + (corners[2 * d + 1] + corners[2 * d2 + 1]);
          const n = hexAt(mx, my);
          if (n >= 0 && inside.has(n)) continue;
          p.moveTo(sx(cx(i)) + corners[2 * d] * s, sy(cy(i)) + corners[2 * d + 1] * s);
          p.lineTo(sx(cx(i)) + corners[2 * d2] * s, sy(cy(i)) + corners[2 * d2 + 1] * s);
        }
      }
      g.strokeStyle = z.side ? sideColour(z.side) : "#dc1e1e"; g.lineWidth = 2.6; g.setLineDash([6, 3]); g.stroke(p); g.setLineDash([]);
    });
  }
  function drawNetwork(g) {
    const s = S.scale, best = new Map();
    for (const [a, b, sees, fires] of D.links) {
      if (!sees && !fires) continue;
      const k = Math.min(a, b) + "," + Math.max(a, b);
      best.set(k, fires || best.get(k) === true);
    }
    g.lineWidth = Math.min(3.5, Math.max(1.5, s * 0.12));
    for (const [k, fires] of best) {
      const [a, b] = k.split(",").map(Number), ha = M.units[a].hex, hb = M.units[b].hex;
      g.strokeStyle = fires ? D.palette.fires : D.palette.sees;
      g.beginPath(); g.moveTo(sx(cx(ha)), sy(cy(ha))); g.lineTo(sx(cx(hb)), sy(cy(hb))); g.stroke();
    }
  }
  function drawUnits(g) {
    const s = S.scale, stacks = new Map();
    M.units.forEach((u, k) => { if (!stacks.has(u.hex)) stacks.set(u.hex, []); stacks.get(u.hex).push(k); });
    g.textAlign = "center";
    for (const [h, st] of stacks) {
      if (!onScreen(h)) continue;
      const x = sx(cx(h)), y = sy(cy(h)), r = Math.max(s * 0.25, 3), fs = Math.min(12, Math.max(8, s * 0.36)), mid = (st.length - 1) / 2;
      st.forEach((k, n) => {
        const u = M.units[k];
        dot(g, x + (n - mid) * r * 1.7, y, r, sideColour(u.side), true);
        if (s >= 15) { g.fillStyle = "#141414"; g.font = fs + "px Ubuntu, 'DejaVu Sans', sans-serif"; g.fillText(u.id, x, y + s * 0.62 + n * fs * 1.2); }
      });
    }
  }

  // --- the data: classes of a viewshed, explanations ---
  const bit = (plane, r, j) => (plane[r * stride + (j >> 3)] >> (j & 7)) & 1;
  /** Class of target j from observer i: 0 visible, 1 hindered, 2 blocked, 3 blind; -1 not carried. */
  function classOf(i, j) {
    const r = rowOf[i];
    if (r < 0) return -1;
    const seen = bit(B.seen, r, j), second = bit(B.second, r, j);
    return seen ? (second ? 1 : 0) : (second ? 3 : 2);
  }
  /** The explained query's answer for i to j, or null where the page does not carry it. */
  function why(i, j) {
    const r = whyRowOf[i];
    if (r < 0) return null;
    const word = (blob, size) => {
      const at = (r * N + j) * size;
      return size === 2 ? blob[at] | (blob[at + 1] << 8) : (blob[at] | (blob[at + 1] << 8) | (blob[at + 2] << 16)) + blob[at + 3] * 16777216;
    };
    const [reason, hindrance] = D.explanations[word(B.why, D.why_bytes)], blocker = word(B.by, D.by_bytes) - 1;
    // The reason's stand-ins for the pair's labels (export/page.rs) put back.
    const text = D.reasons[reason].replaceAll("\u0001", M.labels[i]).replaceAll("\u0002", M.labels[j]).replaceAll("\u0003", blocker >= 0 ? M.labels[blocker] : "");
    return { reason: text, blocker, hindrance };
  }

  /** With a comparison: the targets i gains (after the change it sees them, before not) and loses; null where not carried. */
  let changeCache = { i: -1, c: null };
  function changeOf(i) {
    const r = rowOf[i];
    if (!D.change || r < 0) return null;
    if (changeCache.i === i) return changeCache.c;
    const gained = [], lost = [];
    for (let j = 0; j < N; j++) if (bit(B.changed, r, j)) (bit(B.seen, r, j) ? lost : gained).push(j);
    changeCache = { i, c: { gained, lost } };
    return changeCache.c;
  }
  /** The diverging colour of a change v at full colour from `limit` (red more, blue fewer, the pictures' map). */
  const divergingColour = (v, limit) => D.palette.diverging[Math.round(127.5 + 127.5 * Math.max(-1, Math.min(1, v / limit)))];

  /** The colour layer: the viewshed of the selected hex, its change, or a heatmap. */
  let counts = [0, 0, 0, 0];
  function drawOver() {
    const g = ctx[1];
    g.clearRect(0, 0, W, H);
    layers[1].style.opacity = D.palette.overlay;
    if (S.layer === "viewshed") {
      if (S.sel < 0 || rowOf[S.sel] < 0) return;
      const paths = [new Path2D(), new Path2D(), new Path2D(), new Path2D()];
      counts = [0, 0, 0, 0];
      for (let j = 0; j < N; j++) {
        const k = classOf(S.sel, j);
        counts[k]++;
        if (onScreen(j)) hexPath(paths[k], j);
      }
      paths.forEach((p, k) => { g.fillStyle = D.palette.classes[k].colour; g.fill(p); });
    } else if (S.layer === "change") {
      const c = S.sel >= 0 ? changeOf(S.sel) : null;
      if (!c) return;
      [[c.gained, 1], [c.lost, -1]].forEach(([hexes, v]) => {
        const p = new Path2D();
        for (const j of hexes) if (onScreen(j)) hexPath(p, j);
        g.fillStyle = divergingColour(v, 1); g.fill(p);
      });
    } else if (S.layer === "dheat") {
      const C = D.change, paths = new Map();
      for (let i = 0; i < N; i++) {
        const v = C.seen_by[i];
        if (v === 0 || !onScreen(i)) continue;
        const colour = divergingColour(v, C.limit);
        if (!paths.has(colour)) paths.set(colour, new Path2D());
        hexPath(paths.get(colour), i);
      }
      for (const [colour, p] of paths) { g.fillStyle = colour; g.fill(p); }
    } else {
      const h = D.heats[+S.layer.slice(5)], paths = new Map();
      for (let i = 0; i < N; i++) {
        const v = h.values[i];
        if (v === null || !onScreen(i)) continue;
        const k = Math.round(255 * Math.min(1, Math.max(0, h.max > 0 ? v / h.max : 1)));
        if (!paths.has(k)) paths.set(k, new Path2D());
        hexPath(paths.get(k), i);
      }
      for (const [k, p] of paths) { g.fillStyle = D.palette.heat[k]; g.fill(p); }
    }
  }

  /** The selection, key hexes, the line to the pointed hex and its blocker. */
  function drawUi() {
    const g = ctx[3], s = S.scale;
    g.clearRect(0, 0, W, H);
    const ring = (i, colour) => {
      const x = sx(cx(i)), y = sy(cy(i));
      dot(g, x, y, Math.max(s * 0.38, 6), "#fff", true);
      dot(g, x, y, Math.max(s * 0.18, 3), colour, false);
    };
    if (S.layer === "change" || S.layer === "dheat") {
      // The map is drawn as before the change: outline the hexes the change alters.
      const p = new Path2D();
      for (const i of D.change.altered) if (onScreen(i)) hexPath(p, i, 0.9);
      g.strokeStyle = "#111"; g.lineWidth = 2; g.setLineDash([5, 3]); g.stroke(p); g.setLineDash([]);
    }
    if (S.layer.startsWith("heat") || S.layer === "dheat") for (const k of D.keys) ring(k, "#dc1e1e");
    if (S.cursor >= 0 && S.cursor !== S.pt) {
      const p = new Path2D(); hexPath(p, S.cursor);
      g.strokeStyle = "#1e64dc"; g.lineWidth = 2.5; g.setLineDash([4, 3]); g.stroke(p); g.setLineDash([]);
    }
    if (S.sel >= 0 && S.pt >= 0 && S.pt !== S.sel) {
      const a = S.sel, b = S.pt, k = classOf(a, b);
      g.lineCap = "round";
      g.beginPath(); g.moveTo(sx(cx(a)), sy(cy(a))); g.lineTo(sx(cx(b)), sy(cy(b)));
      g.strokeStyle = "#fff"; g.lineWidth = 5; g.stroke();
      g.strokeStyle = k < 0 ? "#888" : D.palette.lines[Math.min(k, 2)]; g.lineWidth = 2.5;
      if (k !== 0 && k !== 1) g.setLineDash([7, 4]);
      g.stroke(); g.setLineDash([]);
      const p = new Path2D(); hexPath(p, b);
      g.strokeStyle = "#000"; g.lineWidth = 2.5; g.stroke(p);
      const w = why(a, b);
      if (w && w.blocker >= 0) {
        const x = sx(cx(w.blocker)), y = sy(cy(w.blocker)), r = Math.max(s * 0.45, 5);
        g.strokeStyle = "#fff"; g.lineWidth = 5;
        g.beginPath(); g.moveTo(x - r, y - r); g.lineTo(x + r, y + r); g.moveTo(x + r, y - r); g.lineTo(x - r, y + r); g.stroke();
        g.strokeStyle = D.palette.lines[2]; g.lineWidth = 2.5; g.stroke();
      }
    }
    if (S.sel >= 0) ring(S.sel, "#dc1e1e");
  }

  // --- the side panel ---
  const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  function describe(i) {
    const t = M.terrains[M.terrain[i]], u = M.units.filter((x) => x.hex === i).map((x) => x.id);
    return M.labels[i] + " (level " + M.level[i] + ", " + t.name + (u.length ? "; " + u.join(", ") : "") + ")";
  }
  const CLASS = ["visible", "hindered", "blocked", "blind"];
  let counted = -1, listed = -1;
  function info() {
    const obs = $("obs"), lists = $("lists");
    if (S.sel < 0) {
      obs.textContent = "No hex selected: click or tap one, or type its label above.";
      $("counts").textContent = ""; lists.hidden = true;
    } else {
      obs.textContent = "Observer: " + describe(S.sel) + (D.keys.includes(S.sel) ? ", a key hex" : "");
      if (rowOf[S.sel] < 0) {
        // The nearest hex whose viewshed the page carries.
        let near = -1, best = Infinity;
        for (let i = 0; i < N; i++) {
          if (rowOf[i] < 0) continue;
          const d = (cx(i) - cx(S.sel)) ** 2 + (cy(i) - cy(S.sel)) ** 2;
          if (d < best) { best = d; near = i; }
        }
        $("counts").innerHTML = "This map is too large to carry every hex's viewshed (see About this page)" + (near >= 0 ? '; the nearest carried is <button id="go-near">' + esc(M.labels[near]) + "</button>." : ".");
        if (near >= 0) $("go-near").onclick = (e) => select(near, e);
        lists.hidden = true;
      } else {
        // Counted and listed once per observer, not on every move of the pointer.
        if (counted !== S.sel) {
          const c = [0, 0, 0, 0];
          for (let j = 0; j < N; j++) c[classOf(S.sel, j)]++;
          counts = c; counted = S.sel; listed = -1;
        }
        const c = counts;
        $("counts").textContent = "Sees " + c[0] + " hexes clear and " + c[1] + " hindered; " + (c[2] + c[3]) + " hidden, of which " + c[3] + " blind.";
        lists.hidden = false;
        if (lists.open && listed !== S.sel) fillLists();
      }
    }
    const t = $("target");
    if (S.sel >= 0 && S.pt >= 0 && S.pt !== S.sel) {
      const k = classOf(S.sel, S.pt), w = why(S.sel, S.pt);
      $("t-hex").textContent = describe(S.pt);
      $("verdict").textContent = k < 0 ? "not carried" : CLASS[k];
      $("verdict").className = "v v" + k;
      $("hindrance").textContent = w ? String(w.hindrance) : "";
      $("blocker").textContent = w ? (w.blocker >= 0 ? M.labels[w.blocker] : "none") : "";
      $("reason").textContent = w ? w.reason : "The page carries reasons for every line on maps up to 2,500 hexes, and for the key hexes' lines on larger maps; run hexsight los for this one.";
      t.hidden = false;
    } else {
      t.hidden = true;
    }
    changeInfo();
    legend();
  }
  /** The "What changes" section: the diff's counts, and the selected hex's. */
  function changeInfo() {
    const C = D.change;
    if (!C) return;
    $("change-sum").textContent = "Against " + C.against + ": " + C.gained + " ordered pairs gained, " + C.lost + " lost, of " + C.observers + " observers x " + C.targets + " targets.";
    const c = S.sel >= 0 ? changeOf(S.sel) : null;
    $("change-lists").hidden = !c;
    if (S.sel < 0) { $("change-hex").textContent = "Select a hex for its viewshed gained and lost."; return; }
    const signed = (v) => (v > 0 ? "+" : "") + v;
    $("change-hex").textContent = M.labels[S.sel] + ": seen by " + signed(C.seen_by[S.sel]) + " observers, sees " + signed(C.sees[S.sel]) + " hexes" + (c ? "; its viewshed gains " + c.gained.length + " and loses " + c.lost.length + "." : "; its viewshed is not carried (see About this page).");
    if (!c) return;
    for (const [name, hexes] of [["gained", c.gained], ["lost", c.lost]]) {
      $("n-" + name).textContent = hexes.length;
      $("list-" + name).textContent = hexes.length ? hexes.map((j) => M.labels[j]).join(" ") : "none";
    }
  }
  function fillLists() {
    listed = S.sel;
    const by = [[], [], [], []];
    for (let j = 0; j < N; j++) by[classOf(S.sel, j)].push(M.labels[j]);
    CLASS.forEach((c, k) => { $("list-" + c).textContent = by[k].join(" "); $("n-" + c).textContent = by[k].length; });
  }
  function legend() {
    const L = $("legend"), rows = [];
    const sw = (c, text, shape) => '<div class="lg"><span class="sw ' + (shape || "") + '" style="background:' + c + '"></span>' + esc(text) + "</div>";
    if (S.layer === "viewshed") {
      if (S.sel >= 0 && rowOf[S.sel] >= 0) D.palette.classes.forEach((c, k) => rows.push(sw(c.colour, c.name + " (" + counts[k] + ")")));
      else rows.push('<div class="lg">Select a hex for its viewshed.</div>');
    } else if (S.layer === "change") {
      const c = S.sel >= 0 ? changeOf(S.sel) : null;
      if (c) { rows.push(sw(divergingColour(1, 1), "gained (" + c.gained.length + ")")); rows.push(sw(divergingColour(-1, 1), "lost (" + c.lost.length + ")")); }
      else rows.push('<div class="lg">Select a hex for its viewshed gained and lost.</div>');
    } else if (S.layer === "dheat") {
      const C = D.change;
      rows.push('<div class="lg"><b>What changes: seen by</b></div>');
      rows.push('<div class="lg">change in observers seeing the hex</div><div class="bar" style="background:linear-gradient(to right,' + [0, 64, 128, 192, 255].map((k) => D.palette.diverging[k]).join(",") + ')"></div><div class="ticks"><span>' + -C.limit + "</span><span>0</span><span>+" + C.limit + "</span></div>");
      rows.push('<div class="lg note">After minus before: red hexes are seen by more observers after the change, blue by fewer; bare hexes are unchanged.</div>');
    } else {
      const h = D.heats[+S.layer.slice(5)];
      rows.push('<div class="lg"><b>' + esc(h.name) + "</b></div>");
      if (!h.values.some((v) => v !== null && v > 0)) rows.push('<div class="lg note">No hex has a value on this layer.</div>');
      rows.push('<div class="lg">' + esc(h.caption) + '</div><div class="bar" style="background:linear-gradient(to right,' + [0, 64, 128, 192, 255].map((k) => D.palette.heat[k]).join(",") + ')"></div><div class="ticks"><span>0</span><span>' + (+h.max.toFixed(2)) + "</span></div>");
      rows.push('<div class="lg note">' + esc(h.text) + "</div>");
    }
    if (S.layer === "change" || S.layer === "dheat") rows.push('<div class="lg"><span class="sw" style="background:none;border:2px dashed #111"></span>hexes the change alters (' + D.change.altered.length + "; the map shows them before)</div>");
    rows.push('<div class="lg note">Ground: levels ' + M.levels[0] + " to " + M.levels[1] + " (lighter = higher)</div>");
    const present = new Set(M.terrain);
    M.terrains.forEach((t, k) => { if (present.has(k)) rows.push(sw(t.colour, t.name, "small")); });
    const styles = new Set(); for (let e = 2; e < M.edges.length; e += 3) styles.add(M.edges[e]);
    [...styles].sort((a, b) => a - b).forEach((k) => rows.push(sw(M.edge_styles[k].colour, M.edge_styles[k].name, "edge")));
    const marks = new Map(); M.markers.forEach((m) => marks.set(m.name, m.colour));
    for (const [n, c] of marks) rows.push(sw(c, n, "round"));
    if (S.show.units) M.sides.forEach((x) => rows.push(sw(x.colour, "units of side " + x.name, "round")));
    if (S.show.network && D.links.length) { rows.push(sw(D.palette.fires, "can fire (either way)", "edge")); rows.push(sw(D.palette.sees, "sees, cannot fire", "edge")); }
    if (S.show.zones) D.zones.forEach((z) => rows.push(sw(z.side ? sideColour(z.side) : "#dc1e1e", "zone " + z.name + (z.side ? " (" + z.side + ")" : ""), "edge")));
    rows.push(sw("#dc1e1e", S.layer === "viewshed" || S.layer === "change" ? "observer" : "key hexes", "round"));
    L.innerHTML = rows.join("");
  }
  function buildLayers() {
    const box = $("layers"), out = [];
    const radio = (value, text, title) => '<label title="' + esc(title || "") + '"><input type="radio" name="layer" value="' + value + '"' + (value === S.layer ? " checked" : "") + "> " + esc(text) + "</label>";
    out.push(radio("viewshed", "Viewshed of the selected hex", "visible, hindered, blocked and blind hexes"));
    D.heats.forEach((h, k) => out.push(radio("heat:" + k, h.name, h.text)));
    if (D.change) {
      out.push(radio("dheat", "What changes: seen by", "each hex's change in observers that see it, after minus before"));
      out.push(radio("change", "What changes: viewshed of the selected hex", "the hexes it sees after the change and not before (gained), and the other way (lost)"));
    }
    const check = (key, text, ok, why) => '<label class="' + (ok ? "" : "off") + '"' + (ok ? "" : ' title="' + esc(why) + '"') + '><input type="checkbox" data-show="' + key + '"' + (S.show[key] && ok ? " checked" : "") + (ok ? "" : " disabled") + "> " + esc(text) + (ok ? "" : ' <span class="note">(' + esc(why) + ")</span>") + "</label>";
    out.push('<hr>');
    out.push(check("zones", "Zones and sides", D.zones.length > 0, "the map names no zones"));
    out.push(check("network", "Units' network", D.links.length > 0, "no units of two sides"));
    out.push(check("units", "Units", M.units.length > 0, "the map has no units"));
    out.push(check("labels", "Hex labels (when zoomed in)", true, ""));
    box.innerHTML = out.join("");
    if (!D.zones.length) S.show.zones = false;
    if (!D.links.length) S.show.network = false;
    box.addEventListener("change", (e) => {
      const t = e.target;
      if (t.name === "layer") { S.layer = t.value; drawOver(); drawUi(); info(); }
      else if (t.dataset.show) { S.show[t.dataset.show] = t.checked; drawTop(); info(); }
    });
  }

  // --- choosing hexes ---
  /** Makes hex i the observer; `ev` (the input event) times the drawing. */
  function select(i, ev) {
    S.sel = i; S.pt = -1;
    // A click on a heatmap shows that hex's viewshed: its change on the change heatmap.
    const to = S.layer === "dheat" ? "change" : S.layer.startsWith("heat") ? "viewshed" : S.layer;
    if (to !== S.layer && ev) { S.layer = to; const r = document.querySelector("input[name=layer][value=" + to + "]"); if (r) r.checked = true; }
    drawOver(); drawUi(); info();
    if (ev) {
      const t0 = ev.timeStamp || performance.now(), drawn = performance.now() - t0;
      requestAnimationFrame(() => {
        const shown = performance.now() - t0;
        $("timing").textContent = "viewshed of " + M.labels[i] + " drawn in " + drawn.toFixed(1) + " ms, on screen in " + shown.toFixed(1) + " ms";
        window.hexsightLastDraw = { drawn, shown };
      });
    }
  }
  function point(j) {
    if (j === S.pt) return;
    S.pt = j; drawUi(); info();
  }
  function centreOn(i) {
    S.ox = W / 2 - cx(i) * S.scale; S.oy = H / 2 - cy(i) * S.scale;
    if (S.scale < 18) S.scale = Math.min(40, Math.max(S.scale, 18)), S.ox = W / 2 - cx(i) * S.scale, S.oy = H / 2 - cy(i) * S.scale;
    drawAll();
  }
  function findHex(text) {
    const t = text.trim().toUpperCase();
    if (!t) return -1;
    let i = M.labels.findIndex((l) => l.toUpperCase() === t);
    if (i < 0) { const u = M.units.find((x) => x.id.toUpperCase() === t); if (u) i = u.hex; }
    return i;
  }

  function setupInput() {
    const ui = layers[3], box = $("mapbox");
    const local = (e) => { const r = ui.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    const hexOf = (e) => { const [x, y] = local(e); return hexAt((x - S.ox) / S.scale, (y - S.oy) / S.scale); };
    const down = new Map();
    let drag = null, pinch = null, pinched = false; // no tap at the end of a pinch
    ui.addEventListener("pointerdown", (e) => {
      ui.setPointerCapture(e.pointerId);
      down.set(e.pointerId, { x: e.clientX, y: e.clientY, t: e.timeStamp, moved: false });
      if (down.size === 2) {
        pinched = true;
        const [a, b] = [...down.values()];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), scale: S.scale };
        drag = null;
      } else drag = { x: e.clientX, y: e.clientY, ox: S.ox, oy: S.oy };
    });
    ui.addEventListener("pointermove", (e) => {
      const d = down.get(e.pointerId);
      if (d) {
        d.x2 = e.clientX; d.y2 = e.clientY;
        if (Math.hypot(e.clientX - d.x, e.clientY - d.y) > 6) d.moved = true;
        if (pinch && down.size === 2) {
          const [a, b] = [...down.values()];
          const ax = a.x2 ?? a.x, ay = a.y2 ?? a.y, bx = b.x2 ?? b.x, by = b.y2 ?? b.y;
          const r = ui.getBoundingClientRect();
          zoomAt(pinch.scale * Math.hypot(ax - bx, ay - by) / pinch.d / S.scale, (ax + bx) / 2 - r.left, (ay + by) / 2 - r.top);
        } else if (drag && d.moved) {
          S.ox = drag.ox + e.clientX - drag.x; S.oy = drag.oy + e.clientY - drag.y; drawAll();
        }
        return;
      }
      if (e.pointerType === "mouse" && S.sel >= 0) { const j = hexOf(e); if (j >= 0) point(j); }
    });
    const up = (e) => {
      const d = down.get(e.pointerId);
      down.delete(e.pointerId);
      if (down.size < 2) pinch = null;
      if (pinched) { if (down.size === 0) pinched = false; drag = null; return; }
      if (!d || d.moved || e.type === "pointercancel") { drag = null; return; }
      drag = null;
      const i = hexOf(e);
      if (i < 0) return;
      S.cursor = -1;
      // A touch has no hover: a tap on another hex points at it, a second tap makes it the observer.
      if (e.pointerType !== "mouse" && S.sel >= 0 && i !== S.sel && i !== S.pt) point(i);
      else select(i, e);
    };
    ui.addEventListener("pointerup", up);
    ui.addEventListener("pointercancel", up);
    ui.addEventListener("wheel", (e) => {
      e.preventDefault();
      const [x, y] = local(e);
      zoomAt(Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.0015)), x, y);
    }, { passive: false });
    ui.addEventListener("keydown", (e) => {
      const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
      if (step) {
        e.preventDefault();
        if (e.shiftKey) { S.ox -= step[0] * 60; S.oy -= step[1] * 60; drawAll(); return; }
        let c = S.cursor >= 0 ? S.cursor : S.pt >= 0 ? S.pt : S.sel >= 0 ? S.sel : 0;
        const n = hexAt(cx(c) + step[0] * 1.5, cy(c) + step[1] * 1.7320508 + (step[0] ? 0.01 : 0));
        if (n >= 0) c = n;
        S.cursor = c;
        if (S.sel >= 0) point(c); else { drawUi(); }
        const x = sx(cx(c)), y = sy(cy(c));
        if (x < 20 || y < 20 || x > W - 20 || y > H - 20) centreOn(c);
        say("Cursor on " + M.labels[c] + ": Enter makes it the observer.");
      } else if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        const c = S.cursor >= 0 ? S.cursor : S.pt;
        if (c >= 0) { S.cursor = -1; select(c, e); }
      } else if (e.key === "Escape") {
        S.sel = -1; S.pt = -1; S.cursor = -1; drawOver(); drawUi(); info();
      } else if (e.key === "+" || e.key === "=") zoomAt(1.25, W / 2, H / 2);
      else if (e.key === "-") zoomAt(0.8, W / 2, H / 2);
      else if (e.key === "0") { fit(); drawAll(); }
    });
    $("zoom-in").onclick = () => zoomAt(1.25, W / 2, H / 2);
    $("zoom-out").onclick = () => zoomAt(0.8, W / 2, H / 2);
    $("zoom-fit").onclick = () => { fit(); drawAll(); };
    $("search-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const text = $("search").value, i = findHex(text);
      if (i < 0) { $("search-msg").textContent = "No hex or unit `" + text.trim() + "` on this map (" + M.labels[0] + " to " + M.labels[N - 1] + ")."; return; }
      $("search-msg").textContent = "";
      select(i, e); centreOn(i);
    });
    $("make-observer").onclick = (e) => { if (S.pt >= 0) select(S.pt, e); };
    $("lists").addEventListener("toggle", () => { if ($("lists").open) fillLists(); });
    box.addEventListener("contextmenu", (e) => e.preventDefault());
  }

  // For tests and scripts: where a hex is on screen, and what is chosen.
  window.hexsight = {
    screenOf(label) {
      const i = M.labels.indexOf(label);
      if (i < 0) return null;
      const r = layers[3].getBoundingClientRect();
      return { x: r.left + sx(cx(i)), y: r.top + sy(cy(i)) };
    },
    label: (i) => M.labels[i % N],
    fit() { fit(); drawAll(); },
    centreOn(label) { const i = M.labels.indexOf(label); if (i >= 0) { centreOn(i); } },
    state: () => ({ selected: S.sel >= 0 ? M.labels[S.sel] : null, pointed: S.pt >= 0 ? M.labels[S.pt] : null, layer: S.layer, show: { ...S.show }, scale: S.scale }),
  };

  const t0 = performance.now();
  load().then(start, (e) => { say("Could not read the page data: " + e.message); document.body.dataset.ready = "error"; });
})();
