// Accounting: the association tree with shares and fair-share factors (sshare), usage by
// account and user over a period (sreport's cluster AccountUtilizationByUser, from the job
// records), and the limits of associations and QOS.
import * as api from "./api.js";
import {el, fill, num, barChart, jobColour} from "./util.js";

const PERIODS = {"24 hours": 86400, "7 days": 7 * 86400, "30 days": 30 * 86400};
let period = "7 days";

export function mount(root, params, {flash}) {
  const tree = el("section", {class: "card wide", id: "share-tree"});
  const usage = el("section", {class: "card wide", id: "usage"});
  const limits = el("section", {class: "card wide", id: "limits"});
  root.append(el("h1", {}, "Accounting"), el("div", {class: "grid"}, tree, usage, limits));
  const update = async () => {
      const now = Math.floor(Date.now() / 1000);
      const from = now - PERIODS[period];
      const [shares, assocs, qos, records] = await Promise.all([
        api.get(api.SLURM + "/shares"),
        api.get(api.SLURMDB + "/associations"),
        api.get(api.SLURMDB + "/qos"),
        api.get(`${api.SLURMDB}/jobs?start_time=${from}&end_time=${now}`),
      ]);
      fill(tree, el("h2", {}, "Fair share"), shareTree(shares.shares.shares || []));
      const choose = el("select", {id: "period", onchange: () => {
        period = choose.value;
        fill(usage, el("h2", {}, "Usage"), el("p", {class: "muted"}, "loading…"));
        update().catch((e) => flash("Usage: " + e.message, "error"));
      }}, Object.keys(PERIODS).map((p) => el("option", {value: p, selected: p === period}, p)));
      fill(usage, el("h2", {}, "Usage over the last ", choose),
                            usageCharts(records.jobs || [], from, now));
      fill(limits, el("h2", {}, "Limits"), limitTables(assocs.associations || [],
                                                                 qos.qos || []));
  };
  return {title: "Accounting", live: false, update};
}

// Rows of sshare: accounts and their users as an indented tree, root first.
function shareTree(rows) {
  const children = {};
  for (const r of rows) {
    if (r.name === "root" && !r.parent) continue;
    (children[r.parent || ""] ||= []).push(r);
  }
  const ordered = [];
  const walk = (parent, depth) => {
    for (const r of (children[parent] || []).sort((a, b) => a.name.localeCompare(b.name))) {
      ordered.push([r, depth]);
      if (!(r.type || []).includes("USER")) walk(r.name, depth + 1);
    }
  };
  walk("root", 0);
  const fixed = (v, digits = 6) => (num(v) === null ? "" : Number(num(v)).toFixed(digits));
  return el("table", {class: "list"},
            el("thead", {}, el("tr", {}, ["Account / user", "Raw shares", "Norm shares",
                                          "Raw usage", "Effective usage", "Fair share"]
                                             .map((h) => el("th", {}, h)))),
            el("tbody", {}, ordered.map(([r, depth]) => {
              const user = (r.type || []).includes("USER");
              return el("tr", {dataset: {name: r.name}},
                        el("td", {style: {paddingLeft: (0.5 + depth * 1.25) + "em"}},
                           user ? el("span", {class: "subtle"}, "user ") : "", r.name),
                        el("td", {class: "num"}, num(r.shares) ?? ""),
                        el("td", {class: "num"}, fixed(r.shares_normalized)),
                        el("td", {class: "num"}, String(r.usage ?? "")),
                        el("td", {class: "num"}, fixed(r.effective_usage)),
                        el("td", {class: "num"}, user ? fixed(r.fairshare.factor) : ""));
            })));
}

// CPU and GPU hours by account and by user within [from, to]: each record's allocated time
// clipped to the period.
function usageCharts(records, from, to) {
  const byAccount = {}, byUser = {}, gpuByAccount = {};
  for (const r of records) {
    const start = r.time.start || 0;
    if (!start) continue;
    const end = r.time.end || to;
    const seconds = Math.max(0, Math.min(end, to) - Math.max(start, from));
    const tres = (r.tres && r.tres.allocated) || [];
    const cpus = tres.filter((t) => t.type === "cpu").reduce((s, t) => s + t.count, 0);
    const gpus = tres.filter((t) => t.type === "gres" && t.name.startsWith("gpu"))
                     .reduce((s, t) => s + t.count, 0);
    byAccount[r.account] = (byAccount[r.account] || 0) + cpus * seconds / 3600;
    byUser[`${r.user} (${r.account})`] = (byUser[`${r.user} (${r.account})`] || 0) +
                                         cpus * seconds / 3600;
    if (gpus) gpuByAccount[r.account] = (gpuByAccount[r.account] || 0) + gpus * seconds / 3600;
  }
  const rows = (map) => Object.entries(map).sort((a, b) => b[1] - a[1]).slice(0, 20)
                            .map(([label, value], i) => ({label, value, colour: jobColour(i + 3)}));
  const hours = (v) => v.toFixed(v < 10 ? 2 : 0) + " h";
  if (records.length === 0) return el("p", {class: "muted"}, "No job ran in this period.");
  return el("div", {class: "charts"},
            el("div", {}, el("h3", {}, "CPU hours by account"), barChart(rows(byAccount), hours)),
            el("div", {}, el("h3", {}, "CPU hours by user"), barChart(rows(byUser), hours)),
            Object.keys(gpuByAccount).length
                ? el("div", {}, el("h3", {}, "GPU hours by account"),
                     barChart(rows(gpuByAccount), hours))
                : null);
}

function limitText(value) {
  const n = num(value);
  return n === null || n === Infinity ? "" : String(n);
}

function tresText(list) { return (list || []).map((t) => `${t.type}${t.name ? "/" + t.name : ""}=${t.count}`).join(","); }

function limitTables(assocs, qos) {
  return el("div", {},
      el("h3", {}, "Associations"),
      el("table", {class: "list"},
         el("thead", {}, el("tr", {}, ["Account", "User", "Partition", "Shares", "MaxJobs",
                                       "MaxSubmit", "MaxWall", "GrpTRES", "QOS"]
                                          .map((h) => el("th", {}, h)))),
         el("tbody", {}, assocs.map((a) => el("tr", {},
             el("td", {}, a.account), el("td", {}, a.user), el("td", {}, a.partition),
             el("td", {class: "num"}, String(a.shares_raw ?? "")),
             el("td", {class: "num"}, limitText(a.max.jobs.active)),
             el("td", {class: "num"}, limitText(a.max.jobs.total)),
             el("td", {class: "num"}, limitText(a.max.jobs.per.wall_clock)),
             el("td", {}, tresText(a.max.tres.total)),
             el("td", {}, (a.qos || []).join(",")))))),
      el("h3", {}, "QOS"),
      el("table", {class: "list"},
         el("thead", {}, el("tr", {}, ["Name", "Priority", "Preempt mode", "MaxWall",
                                       "MaxTRESPU", "MaxJobsPU"].map((h) => el("th", {}, h)))),
         el("tbody", {}, qos.map((q) => el("tr", {},
             el("td", {}, q.name), el("td", {class: "num"}, limitText(q.priority)),
             el("td", {}, ((q.preempt || {}).mode || []).join(",")),
             el("td", {class: "num"}, limitText((((q.limits || {}).max || {}).wall_clock || {}).per
                                                    ? q.limits.max.wall_clock.per.job : null)),
             el("td", {}, tresText(((((q.limits || {}).max || {}).tres || {}).per || {}).user)),
             el("td", {class: "num"},
                limitText((((((q.limits || {}).max || {}).jobs || {}).active_jobs) || {}).per
                              ? q.limits.max.jobs.active_jobs.per.user : null)))))));
}
