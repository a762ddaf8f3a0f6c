// Renders one dashboard: ?dashboard=FILE&start=UNIX&end=UNIX&step=SECONDS&rate=INTERVAL.
// Template variables ($instance, $map) select everything; $__rate_interval
// becomes the rate parameter. The page sets document.title to "done" when
// every panel is drawn.
(async function () {
  const q = new URLSearchParams(location.search);
  const file = q.get("dashboard");
  const end = Number(q.get("end")) || Date.now() / 1000;
  const start = Number(q.get("start")) || end - 600;
  const step = q.get("step") || "2";
  const rate = q.get("rate") || "30s";
  const palette = ["#73bf69", "#f2cc0c", "#8ab8ff", "#ff780a", "#f2495c", "#5794f2", "#b877d9", "#fade2a", "#37872d", "#c4162a"];

  const dash = await (await fetch("dashboards/" + file)).json();
  document.getElementById("title").textContent = dash.title;
  document.getElementById("sub").textContent =
    dash.description + "  (" + new Date(start * 1000).toISOString().slice(11, 19) + " to " +
    new Date(end * 1000).toISOString().slice(11, 19) + " UTC, from Prometheus)";

  const fmt = (unit, v) => {
    if (v == null || isNaN(v)) return "-";
    const si = (x, suffixes, base) => {
      let i = 0;
      while (Math.abs(x) >= base && i < suffixes.length - 1) { x /= base; i++; }
      return (Math.abs(x) >= 1000 ? x.toFixed(0) : String(Number(x.toPrecision(4)))) + suffixes[i];
    };
    switch (unit) {
      case "s": return v === 0 ? "0" : v < 1e-3 ? (v * 1e6).toFixed(0) + " µs" : v < 1 ? (v * 1e3).toFixed(1) + " ms" : v.toFixed(2) + " s";
      case "bytes": return si(v, [" B", " KiB", " MiB", " GiB", " TiB"], 1024);
      case "Bps": return si(v, [" B/s", " KiB/s", " MiB/s", " GiB/s"], 1024);
      case "ops": return si(v, ["/s", "k/s", "M/s"], 1000);
      case "percentunit": return (v * 100).toFixed(1) + "%";
      default: return si(v, ["", "k", "M", "G"], 1000);
    }
  };
  const expand = (expr) => expr.replaceAll("$__rate_interval", rate).replace(/\$\{?(\w+)\}?/g, ".*");
  const legend = (tpl, metric) => tpl.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k) => metric[k] ?? "");

  async function query(expr) {
    const u = "api/v1/query_range?" + new URLSearchParams({ query: expand(expr), start, end, step });
    const r = await (await fetch(u)).json();
    return r.status === "success" ? r.data.result : [];
  }

  const grid = document.getElementById("grid");
  const jobs = dash.panels.map(async (p) => {
    const el = document.createElement("div");
    el.className = "panel";
    const g = p.gridPos;
    el.style.gridColumn = (g.x + 1) + " / span " + g.w;
    el.style.gridRow = (g.y + 1) + " / span " + g.h;
    el.innerHTML = '<div class="title"></div>';
    el.firstChild.textContent = p.title;
    grid.appendChild(el);
    const unit = p.fieldConfig.defaults.unit;
    const results = [];
    for (const t of p.targets) {
      for (const s of await query(t.expr)) results.push({ name: legend(t.legendFormat, s.metric), values: s.values });
    }
    if (results.length === 0) {
      el.insertAdjacentHTML("beforeend", '<div class="nodata">No data</div>');
      return;
    }
    if (p.type === "stat") {
      const vals = results.map((r) => Number(r.values[r.values.length - 1][1]));
      const div = document.createElement("div");
      div.className = "stat";
      div.textContent = results.length === 1 ? fmt(unit, vals[0]) : results.map((r) => r.name).join(", ");
      if (results.length > 1) div.style.fontSize = "16px";
      el.appendChild(div);
      return;
    }
    const times = [...new Set(results.flatMap((r) => r.values.map((v) => v[0])))].sort((a, b) => a - b);
    const data = [times];
    for (const r of results) {
      const m = new Map(r.values.map((v) => [v[0], Number(v[1])]));
      data.push(times.map((t) => (m.has(t) && isFinite(m.get(t)) ? m.get(t) : null)));
    }
    const width = el.clientWidth - 16;
    const height = g.h * 38 - 70;
    const opts = {
      width, height,
      legend: { show: true, live: false },
      cursor: { show: false },
      axes: [
        { stroke: "#8e8e8e", grid: { stroke: "#2c3235" }, ticks: { stroke: "#2c3235" } },
        { stroke: "#8e8e8e", grid: { stroke: "#2c3235" }, ticks: { stroke: "#2c3235" }, size: 90, values: (u, vals) => vals.map((v) => fmt(unit, v)) },
      ],
      series: [{}].concat(results.map((r, i) => ({ label: r.name, stroke: palette[i % palette.length], width: 1.5, value: (u, v) => fmt(unit, v) }))),
    };
    new uPlot(opts, data, el);
  });
  await Promise.all(jobs);
  document.title = "done";
})().catch((e) => {
  document.body.insertAdjacentText("beforeend", "error: " + e);
  document.title = "done";
});
