"""A game as one self-contained HTML page: the board, a turn slider, coins and worth over the
game, the turn's story, and each player's win probability at every turn start (rollouts).

:func:`record` plays a game on the reference engine and keeps the state at every turn start;
:func:`win_probabilities` continues each of those positions ``k`` times on fresh luck in the
batch engine (:func:`barbaron.rollouts.fork`) with the game's bots; :func:`render` writes the
page (inline CSS, JS and SVG: no server, no network).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from barbaron import rules as R
from barbaron.reference import Event, Game, Outcome, worths
from barbaron.rules import Rules
from barbaron.strategy import Decision, Strategy

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")  # seat 0..3


@dataclass(frozen=True)
class Snapshot:
    """The state at the start of turn slot ``slot`` (or, slot = turn_slots, at closing time)."""

    slot: int
    round: int
    seat: int
    coins: tuple[int, ...]
    position: tuple[int, ...]
    skip: tuple[bool, ...]
    owner: tuple[int, ...]
    level: tuple[int, ...]
    deck: tuple[int, ...]  # the current shuffle's order (empty before the first draw)
    drawn: int  # cards drawn so far

    @property
    def worth(self) -> list[int]:
        return worths(self.coins, self.owner, self.level)


class _SnapshotGame(Game):
    snapshots: list[Snapshot]

    def _snap(self, seat: int) -> None:
        self.snapshots.append(
            Snapshot(
                self.slot,
                self.round,
                seat,
                tuple(self.coins),
                tuple(self.position),
                tuple(self.skip),
                tuple(self.owner),
                tuple(self.level),
                tuple(int(c) for c in self._order),
                self.cards_drawn,
            )
        )

    def _turn(self, seat: int) -> None:
        self._snap(seat)
        super()._turn(seat)


@dataclass
class Recorded:
    """A game played with its turn-start states."""

    rules: Rules
    outcome: Outcome
    events: list[Event]
    snapshots: list[Snapshot] = field(default_factory=list)  # turn starts, then closing time


def record(
    rules: Rules, strategies: Sequence[Strategy], chance, seed: int | None, game: int | None
) -> Recorded:
    """Play a game on the reference engine, keeping the state at every turn start."""
    played = _SnapshotGame(rules, strategies, chance, seed=seed, game=game)
    played.snapshots = []
    outcome = played.play()
    played._snap(-1)  # closing time
    return Recorded(rules, outcome, played.events, played.snapshots)


def win_probabilities(
    recorded: Recorded, bots: Sequence[Strategy], seed: int, game: int, rollouts: int
) -> np.ndarray:
    """(turn slots + 1, players): each seat's win share (R19: a k-way tie counts 1/k) in
    ``rollouts`` games continued from every turn start with ``bots`` on fresh luck; the last
    row is the game's own result. The positions join one growing batch slot by slot."""
    from barbaron.batch import BatchState, kernel_state, play_slot, worth
    from barbaron.rollouts import DecisionPoint, fork

    rules, players = recorded.rules, recorded.rules.players
    starts = recorded.snapshots[:-1]
    out = np.zeros((len(starts) + 1, players))
    final = np.array(recorded.outcome.worth)
    out[-1] = (final == final.max()) / (final == final.max()).sum()
    if rollouts <= 0 or not starts:
        out[:-1] = np.nan
        return out
    k = int(rollouts)
    state = None
    for snap in starts:
        deck = np.zeros((1, R.N_CARDS), dtype=np.int8)
        if snap.deck and snap.drawn % R.N_CARDS:
            deck[0] = snap.deck
        base = BatchState(
            game=np.array([game], dtype=np.int64),
            coins=np.array([snap.coins], dtype=np.int32),
            position=np.array([snap.position], dtype=np.int8),
            skip=np.array([snap.skip], dtype=bool),
            owner=np.array([snap.owner], dtype=np.int8),
            level=np.array([snap.level], dtype=np.int8),
            deck=deck,
            drawn=np.array([snap.drawn], dtype=np.int32),
            rolls=np.zeros(1, dtype=np.int32),
            round=snap.round,
        )
        point = DecisionPoint(snap.slot, snap.seat, Decision.UPGRADE)
        copies = fork(base, np.zeros(k, dtype=np.int64), np.arange(k), seed, point)
        if state is None:
            state = copies
        else:
            state = BatchState(
                *(
                    np.concatenate([getattr(state, f), getattr(copies, f)])
                    for f in ("game", "coins", "position", "skip", "owner", "level", "deck")
                ),
                drawn=np.concatenate([state.drawn, copies.drawn]),
                rolls=np.concatenate([state.rolls, copies.rolls]),
                round=snap.round,
            )
        play_slot(rules, bots[snap.seat], seed, state, kernel_state(state), snap.round, snap.seat)
    w = worth(state, players).reshape(len(starts), k, players)
    best = w == w.max(axis=2, keepdims=True)
    share = best / best.sum(axis=2, keepdims=True)
    out[:-1] = share.mean(axis=1)
    return out


def page_data(recorded: Recorded, names: Sequence[str], winprob: np.ndarray) -> dict:
    """Everything the page shows, as JSON-ready data."""
    rules = recorded.rules
    frames = []
    for i, snap in enumerate(recorded.snapshots):
        closing = snap.seat < 0
        slot = rules.turn_slots if closing else snap.slot
        if closing:
            title = "Closing time"
            lines = [e for e in recorded.events if e.slot >= rules.turn_slots]
        else:
            title = f"Round {snap.round}, seat {snap.seat}'s turn (slot {slot})"
            lines = [e for e in recorded.events if e.slot == slot and e.kind != "round"]
        frames.append(
            {
                "title": title,
                "seat": snap.seat,
                "coins": list(snap.coins),
                "worth": snap.worth,
                "position": list(snap.position),
                "skip": list(snap.skip),
                "owner": list(snap.owner),
                "level": list(snap.level),
                "events": [("" if e.seat < 0 else f"seat {e.seat} ") + e.text for e in lines],
                "winprob": [None if np.isnan(p) else round(float(p), 4) for p in winprob[i]],
            }
        )
    return {
        "names": list(names),
        "colours": list(COLOURS[: rules.players]),
        "spaces": list(R.SPACE_NAMES),
        "spaceBar": list(R.SPACE_TO_BAR),
        "prices": list(R.PRICES),
        "districts": [R.DISTRICT_NAMES[R.district_of(b)] for b in range(R.N_BARS)],
        "frames": frames,
    }


def render(
    recorded: Recorded,
    names: Sequence[str],
    winprob: np.ndarray,
    *,
    title: str,
    rollouts: int,
    rollout_bots: Sequence[str],
) -> str:
    """The page: one self-contained HTML document."""
    data = page_data(recorded, names, winprob)
    o = recorded.outcome
    crown = " and ".join(f"seat {s} ({names[s]})" for s in o.winners)
    result = " &middot; ".join(
        f'<span class="res" style="color:{COLOURS[s]}">seat {s} {html.escape(names[s])}: '
        f'<b id="final-worth-{s}">{o.worth[s]}</b></span>'
        for s in range(recorded.rules.players)
    )
    verb = "wins" if len(o.winners) == 1 else "share the win"
    note = (
        f"{rollouts} rollouts from each turn start, seats played by {', '.join(rollout_bots)}"
        if rollouts > 0
        else "no rollouts (--rollouts 0)"
    )
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    fills = {
        "__TITLE__": html.escape(title),
        "__RESULT__": result,
        "__WINNER__": html.escape(f"{crown} {verb} with a worth of {max(o.worth)}"),
        "__NOTE__": html.escape(note),
        "__DATA__": payload,
    }
    # in one pass: a name holding a placeholder's text is shown as it is, never filled in
    return re.sub("|".join(fills), lambda m: fills[m.group()], _TEMPLATE)


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Bar Baron: __TITLE__</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:12px 18px;
color:#222;background:#fafaf7}
h1{font-size:20px;margin:0 0 4px}
#header{margin-bottom:8px;font-size:14px}#winner{font-weight:bold}
#wrap{display:flex;gap:18px;align-items:flex-start}
#left{flex:0 0 520px}#right{flex:1;min-width:380px}
#controls{margin:6px 0;display:flex;gap:6px;align-items:center;font-size:14px}
#controls input[type=range]{flex:1}
button{font-size:14px;padding:2px 10px}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
td,th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}
td:first-child,th:first-child{text-align:left}
#events{font-size:13px;background:#fff;border:1px solid #ddd;padding:6px 8px;min-height:90px;
max-height:210px;overflow:auto;white-space:pre-wrap}
.chart-title{font-size:13px;font-weight:bold;margin-top:6px}
.note{font-size:12px;color:#666}
svg text{font-family:inherit}
</style></head><body>
<h1>Bar Baron: __TITLE__</h1>
<div id="header">Final worth: __RESULT__<br><span id="winner">__WINNER__</span></div>
<div id="wrap"><div id="left">
<svg id="board" width="520" height="520" viewBox="0 0 520 520"></svg>
<div id="controls"><button id="first">|&#x25C0;</button><button id="prev">&#x25C0;</button>
<input type="range" id="slider" min="0" value="0"><button id="next">&#x25B6;</button>
<button id="last">&#x25B6;|</button><span id="frame-label"></span></div>
<div id="wins"><div class="chart-title">Win probability at each turn start</div>
<svg id="winchart" width="520" height="180"></svg></div>
<div class="note">__NOTE__</div>
</div><div id="right">
<div id="turn-title" style="font-weight:bold"></div>
<table id="players"><thead><tr><th>seat</th><th>player</th><th>coins</th><th>worth</th>
<th>bars</th><th>win prob.</th></tr></thead><tbody></tbody></table>
<div class="chart-title">This turn</div><div id="events"></div>
<div class="chart-title">Coins (solid) and worth (dashed) over the game</div>
<svg id="moneychart" width="520" height="220"></svg>
</div></div>
<script id="game-data" type="application/json">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("game-data").textContent);
const F = D.frames, P = D.names.length, NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function cell(i) {  // the 16 spaces around a 5 x 5 ring, clockwise from the top left
  if (i <= 4) return [i, 0];
  if (i <= 8) return [4, i - 4];
  if (i <= 12) return [12 - i, 4];
  return [0, 16 - i];
}
function tint(hex) {
  const n = parseInt(hex.slice(1), 16);
  const m = (v) => Math.round(v + (255 - v) * 0.7);
  return `rgb(${m(n >> 16)},${m((n >> 8) & 255)},${m(n & 255)})`;
}
const board = document.getElementById("board"), C = 104;
function drawBoard(f) {
  board.innerHTML = "";
  for (let s = 0; s < 16; s++) {
    const [cx, cy] = cell(s), x = cx * C, y = cy * C, bar = D.spaceBar[s];
    const owner = bar >= 0 ? f.owner[bar] : -1;
    const fill = owner >= 0 ? tint(D.colours[owner]) : bar >= 0 ? "#fff" : "#eee";
    el("rect", {x: x + 1, y: y + 1, width: C - 2, height: C - 2, fill: fill,
      stroke: owner >= 0 ? D.colours[owner] : "#999", "stroke-width": owner >= 0 ? 3 : 1,
      class: "space", "data-space": s}, board);
    el("text", {x: x + 5, y: y + 16, "font-size": D.spaces[s].length > 14 ? 10 : 11,
      "font-weight": "bold"}, board, D.spaces[s]);
    if (bar >= 0) {
      el("text", {x: x + 6, y: y + 30, "font-size": 10, fill: "#555"}, board,
        D.districts[bar] + " \\u00b7 " + D.prices[bar]);
      const lv = f.level[bar];
      if (owner >= 0) {
        el("text", {x: x + 6, y: y + 44, "font-size": 10}, board, "seat " + owner);
        if (lv) el("text", {x: x + 6, y: y + 57, "font-size": 10, "font-style": "italic"}, board,
          ["", "Happy Hour", "Draught Tap"][lv]);
        for (let k = 0; k < lv; k++)
          el("rect", {x: x + C - 16 - 12 * k, y: y + C - 26, width: 9, height: 16,
            fill: D.colours[owner], class: "level-mark"}, board);
      }
    }
    let k = 0;
    for (let p = 0; p < P; p++) {
      if (f.position[p] !== s) continue;
      const px = x + 18 + 22 * k, py = y + C - 20;
      el("circle", {cx: px, cy: py, r: 9, fill: D.colours[p], stroke: "#000",
        "stroke-width": f.seat === p ? 3 : 1, "stroke-dasharray": f.skip[p] ? "3,2" : "",
        class: "piece", "data-seat": p}, board);
      el("text", {x: px, y: py + 4, "font-size": 10, fill: "#fff", "text-anchor": "middle"},
        board, String(p));
      k++;
    }
  }
  el("text", {x: 260, y: 240, "font-size": 22, "text-anchor": "middle", "font-weight": "bold"},
    board, "Bar Baron");
  el("text", {x: 260, y: 268, "font-size": 14, "text-anchor": "middle"}, board, f.title);
  D.names.forEach((n, p) => {
    el("circle", {cx: 170, cy: 300 + 20 * p, r: 7, fill: D.colours[p]}, board);
    const label = "seat " + p + ": " + n;  // cut to fit inside the ring; whole in the table
    el("text", {x: 184, y: 305 + 20 * p, "font-size": 13}, board,
      label.length > 26 ? label.slice(0, 25) + "\u2026" : label);
  });
}
function coinsLabel(v) {  // short enough for the axis at any coins: 950, 12k, 1.05M
  const a = Math.abs(v);
  if (a >= 999500) return (v / 1e6).toFixed(a >= 1e8 ? 0 : 2) + "M";  // (not "1000k")
  if (a >= 1e4) return Math.round(v / 1e3) + "k";
  return String(Math.round(v));
}
function lineChart(svg, series, ymin, ymax, current, fmt) {
  svg.innerHTML = "";
  const W = +svg.getAttribute("width"), H = +svg.getAttribute("height");
  const L = 44, R = 8, T = 8, B = 22, n = F.length;
  const X = (i) => L + (W - L - R) * (n > 1 ? i / (n - 1) : 0);
  const Y = (v) => T + (H - T - B) * (1 - (v - ymin) / ((ymax - ymin) || 1));
  for (let t = 0; t <= 4; t++) {
    const v = ymin + (ymax - ymin) * t / 4;
    el("line", {x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#ddd"}, svg);
    el("text", {x: L - 4, y: Y(v) + 4, "font-size": 10, "text-anchor": "end"}, svg, fmt(v));
  }
  el("text", {x: W - R, y: H - 6, "font-size": 10, "text-anchor": "end"}, svg, "turn \\u2192");
  for (const s of series) {
    const pts = [];
    s.values.forEach((v, i) => { if (v !== null) pts.push(X(i) + "," + Y(v)); });
    el("polyline", {points: pts.join(" "), fill: "none", stroke: s.colour,
      "stroke-width": 2, "stroke-dasharray": s.dash || ""}, svg);
  }
  el("line", {x1: X(current), x2: X(current), y1: T, y2: H - B, stroke: "#000",
    "stroke-width": 1, "stroke-dasharray": "4,3", id: svg.id + "-cursor"}, svg);
}
const slider = document.getElementById("slider");
slider.max = F.length - 1;
let cur = 0;
const money = [];
for (const f of F) for (let p = 0; p < P; p++) money.push(f.coins[p], f.worth[p]);
// the least step >= x: a whole number up to 10, then 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 x 10^k
function niceStep(x) {
  if (!(x > 10)) return Math.max(1, Math.ceil(x));  // (coins are whole: whole steps)
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * p).find((m) => m >= x);
}
const mmin = Math.min(0, ...money), mstep = niceStep((Math.max(...money) - mmin) / 4);
const mmax = mmin + 4 * mstep;  // (coins and worth are never below 0: ticks at round numbers)
const rolledOut = F.slice(0, -1).some((f) => f.winprob.some((w) => w !== null));
if (!rolledOut) document.getElementById("wins").style.display = "none";  // (--rollouts 0)
function show(i) {
  cur = Math.max(0, Math.min(F.length - 1, i));
  const f = F[cur];
  slider.value = cur;
  // slots count from 0, as in #turn=N, scenario files and error messages; the last is closing
  document.getElementById("frame-label").textContent = cur === F.length - 1 ? "closing time"
    : "slot " + cur + " (of 0 to " + (F.length - 2) + ")";
  document.getElementById("turn-title").textContent = f.title;
  drawBoard(f);
  const body = document.querySelector("#players tbody");
  body.innerHTML = "";
  for (let p = 0; p < P; p++) {
    const bars = f.owner.filter((o) => o === p).length, wp = f.winprob[p];
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><span style="color:${D.colours[p]}">\\u25cf</span> ${p}</td>` +
      `<td></td><td id="coins-${p}">${f.coins[p]}</td>` +
      `<td id="worth-${p}" class="worth" data-seat="${p}">${f.worth[p]}</td><td>${bars}</td>` +
      `<td id="winprob-${p}">${wp === null ? "-" : (100 * wp).toFixed(1) + "%"}</td>`;
    tr.children[1].textContent = D.names[p];
    body.appendChild(tr);
  }
  document.getElementById("events").textContent = f.events.join("\\n");
  if (rolledOut) lineChart(document.getElementById("winchart"), D.names.map((n, p) => ({
    colour: D.colours[p], values: F.map((g) => g.winprob[p])})), 0, 1, cur,
    (v) => Math.round(100 * v) + "%");
  const series = [];
  D.names.forEach((n, p) => {
    series.push({colour: D.colours[p], values: F.map((g) => g.coins[p])});
    series.push({colour: D.colours[p], dash: "5,4", values: F.map((g) => g.worth[p])});
  });
  lineChart(document.getElementById("moneychart"), series, mmin, mmax, cur, coinsLabel);
  document.body.setAttribute("data-frame", String(cur));
  if (location.hash !== "#turn=" + cur && location.protocol !== "file:")
    history.replaceState(null, "", "#turn=" + cur);
}
slider.addEventListener("input", () => show(+slider.value));
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
document.getElementById("last").onclick = () => show(F.length - 1);
document.addEventListener("keydown", (e) => {
  const step = {ArrowLeft: -1, ArrowRight: 1}[e.key];
  if (step === undefined || e.altKey || e.ctrlKey || e.metaKey) return;  // (Alt+Left: Back)
  e.preventDefault();  // the slider, when focused, would move one turn more
  show(cur + step);
});
function fromHash() {
  const m = /turn=(last|\\d+)/.exec(location.hash);
  show(m ? (m[1] === "last" ? F.length - 1 : +m[1]) : 0);
}
window.addEventListener("hashchange", fromHash);
fromHash();
</script></body></html>
"""
