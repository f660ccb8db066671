"""The HTML, CSS and JavaScript of a replay page (filled in by ``otrio.benchmarks.replay.html``).

``__TITLE__`` is replaced by the page title and ``__DATA__`` by the base-64 text of the
gzip-compressed JSON data. The script inflates it with the browser's built-in
``DecompressionStream``, then draws frame by frame: a picture is its list of line
numbers into the shared line pool. Controls: first / back / play-pause / forward /
last buttons, a slider over every frame, a round selector, a speed selector and the
point of view (the whole table or one seat's own view); keys: arrows, Home, End,
space. ``document.body.dataset.ready`` is ``"1"`` once the first frame is drawn.
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 0; background: #eef1f4;
       color: #1d2430; }
header { background: #23364d; color: #ffffff; padding: 10px 18px; }
header h1 { font-size: 20px; margin: 0 0 4px 0; }
#about { font-size: 12px; opacity: 0.85; }
#controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 10px 18px;
            background: #ffffff; border-bottom: 1px solid #c9d2dc; }
#controls button { font-size: 15px; min-width: 40px; padding: 4px 10px; cursor: pointer; }
#controls label { font-size: 13px; }
#slider { flex: 1 1 220px; }
#status { padding: 8px 18px; font-size: 15px; background: #f8fafc; }
#step-label { font-weight: bold; margin-right: 12px; }
#action { font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; }
#action.secret { color: #8a5a00; font-style: italic; }
#main { display: flex; gap: 16px; padding: 12px 18px; align-items: flex-start; }
#board { flex: 1 1 auto; min-width: 0; background: #ffffff; border: 1px solid #c9d2dc;
         padding: 6px; }
#board svg { display: block; width: 100%; height: auto; }
#side { flex: 0 0 300px; }
@media (max-width: 900px) { #main { flex-wrap: wrap; } #side { flex: 1 1 100%; } }
table { border-collapse: collapse; font-size: 13px; background: #ffffff; }
th, td { border: 1px solid #c9d2dc; padding: 3px 8px; text-align: left; }
tr.acting td { background: #fff4cc; }
#result { background: #ffffff; border: 2px solid #23364d; padding: 8px 14px; margin-top: 12px; }
#result h2 { font-size: 18px; margin: 4px 0 8px 0; }
#error { color: #a00000; padding: 18px; }
</style>
</head>
<body>
<header><h1 id="title">__TITLE__</h1><div id="about"></div></header>
<div id="controls">
  <button id="first" title="first decision (Home)">|&#x25C0;</button>
  <button id="prev" title="step back (Left arrow)">&#x25C0;</button>
  <button id="play" title="play or pause (space)">play</button>
  <button id="next" title="step forward (Right arrow)">&#x25B6;</button>
  <button id="last" title="the end (End)">&#x25B6;|</button>
  <input id="slider" type="range" min="0" max="0" value="0" aria-label="decision">
  <label>round <select id="round"></select></label>
  <label>speed <select id="speed">
    <option value="1500">slow</option><option value="600" selected>normal</option>
    <option value="150">fast</option></select></label>
  <label>view <select id="pov"></select></label>
</div>
<div id="status"><span id="step-label"></span><span id="action"></span></div>
<div id="main">
  <div id="board"></div>
  <div id="side"><div id="scores"></div><div id="result" hidden></div></div>
</div>
<script id="data" type="application/octet-stream">__DATA__</script>
<script>
"use strict";
(async function () {
  const $ = (id) => document.getElementById(id);
  let D;
  try {
    const text = $("data").textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    D = JSON.parse(await new Response(stream).text());
  } catch (err) {
    $("main").innerHTML = '<div id="error">This replay needs a browser with ' +
      "DecompressionStream (Chrome 80+, Firefox 113+, Safari 16.4+): " + err + "</div>";
    return;
  }
  const last = D.frames.length - 1;
  let frame = 0, view = 0, timer = null;
  $("title").textContent = D.title;
  $("about").textContent = D.about;
  $("slider").max = String(last);
  const pov = $("pov");
  pov.add(new Option("whole table (everything)", "0"));
  D.players.forEach((name, k) => pov.add(new Option(name + ": own view", String(k + 1))));
  D.rounds.forEach(([label, at]) => $("round").add(new Option(String(label), String(at))));
  const cache = new Map();
  function picture(id) {
    if (!cache.has(id)) cache.set(id, D.pictures[id].map((i) => D.pool[i]).join("\\n"));
    return cache.get(id);
  }
  function escapeText(text) {
    const div = document.createElement("div");
    div.textContent = text;
    return div.innerHTML;
  }
  function show() {
    const f = D.frames[frame];
    $("board").innerHTML = picture(f.p[view]);
    const seat = view - 1;
    if (frame < last) {
      $("step-label").textContent = "Decision " + (frame + 1) + " / " + last +
        (f.r ? " \\u00b7 round " + f.r : "");
      const hidden = f.x.includes(view);
      $("action").textContent = hidden ? D.players[f.a] + " chooses in secret" : f.t;
      $("action").className = hidden ? "secret" : "";
    } else {
      $("step-label").textContent = "Game over after " + last + " decisions";
      $("action").textContent = "";
      $("action").className = "";
    }
    const seen = view === 0 || f.v[seat];
    let rows = "<tr><th>seat</th><th>score</th></tr>";
    D.players.forEach((name, k) => {
      rows += '<tr class="' + (k === f.a ? "acting" : "") + '"><td>' + escapeText(name) +
        "</td><td>" + (seen ? f.sc[k] : "?") + "</td></tr>";
    });
    $("scores").innerHTML = "<table>" + rows + "</table>";
    $("result").hidden = frame !== last;
    $("result").innerHTML = frame === last ? D.result[view] : "";
    $("slider").value = String(frame);
    if (f.r) $("round").value = String(D.rounds[f.r - 1][1]);
    $("first").disabled = $("prev").disabled = frame === 0;
    $("next").disabled = $("last").disabled = frame === last;
    document.body.dataset.frame = String(frame);
  }
  function go(to) {
    frame = Math.max(0, Math.min(last, to));
    if (frame === last) stop();
    show();
  }
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").textContent = "play";
  }
  function play() {
    if (frame === last) frame = 0;
    timer = setInterval(() => go(frame + 1), Number($("speed").value));
    $("play").textContent = "pause";
  }
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(frame - 1);
  $("next").onclick = () => go(frame + 1);
  $("last").onclick = () => go(last);
  $("play").onclick = () => (timer === null ? play() : stop());
  $("speed").onchange = () => { if (timer !== null) { stop(); play(); } };
  $("slider").oninput = () => go(Number($("slider").value));
  $("round").onchange = () => go(Number($("round").value));
  pov.onchange = () => { view = Number(pov.value); show(); };
  document.addEventListener("keydown", (e) => {
    const tag = e.target.tagName;  // a focused control handles its own keys
    if (tag === "SELECT" || tag === "INPUT" || (tag === "BUTTON" && e.key === " ")) return;
    const keys = { ArrowLeft: frame - 1, ArrowRight: frame + 1, Home: 0, End: last };
    if (e.key in keys) { e.preventDefault(); go(keys[e.key]); }
    if (e.key === " ") { e.preventDefault(); $("play").click(); }
  });
  show();
  document.body.dataset.ready = "1";
})();
</script>
</body>
</html>
"""
