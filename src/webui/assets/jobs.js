// Jobs: the controller's jobs with filters (state, user, account, partition, QOS, text), sorting
// by any column, live updates, and the actions the signed-in user may take on each job.
import * as api from "./api.js";
import {el, fill, num, duration, parseGres} from "./util.js";

const FILTERS = ["state", "user", "account", "partition", "qos"];
const COLUMNS = [
  {key: "id", title: "Job", num: true},
  {key: "name", title: "Name"},
  {key: "user", title: "User"},
  {key: "account", title: "Account"},
  {key: "partition", title: "Partition"},
  {key: "qos", title: "QOS"},
  {key: "state", title: "State"},
  {key: "time", title: "Time", num: true},
  {key: "nodes", title: "Nodes (reason)"},
  {key: "cpus", title: "CPUs", num: true},
  {key: "gpus", title: "GPUs", num: true},
  {key: "priority", title: "Priority", num: true},
];

// What the page remembers between updates and visits (filters, sort).
const view = {filters: {}, text: "", sort: "id", descending: false};

export function row(job, now) {
  const states = job.job_state || [];
  const start = num(job.start_time) || 0;
  const running = states.includes("RUNNING");
  const gres = (job.gres_detail || []).map(parseGres).reduce((t, g) => t + g.count, 0);
  const pending = states.includes("PENDING");
  return {
    job,
    id: job.job_id,
    name: job.name,
    user: job.user_name,
    account: job.account,
    partition: job.partition,
    qos: job.qos,
    state: states[0] || "",
    flags: states.slice(1),
    time: running && start ? now - start : 0,
    nodes: pending ? `(${job.state_reason})` : job.nodes,
    cpus: num(job.cpus) || 0,
    gpus: gres || (pending ? requestedGpus(job) : 0),
    priority: num(job.priority) || 0,
  };
}

function requestedGpus(job) {
  const m = (job.tres_per_node || "").match(/gpu(?::[^:,]+)?:(\d+)/);
  return m ? Number(m[1]) * (num(job.node_count) || 1) : 0;
}

export function actionsFor(job, {act}) {
  const states = job.job_state || [];
  const id = job.job_id;
  const buttons = [];
  const button = (label, description, action) => buttons.push(
      el("button", {type: "button", class: "small", dataset: {action: label.toLowerCase()},
                    onclick: (e) => { e.stopPropagation(); act(description, action); }},
         label));
  const pending = states.includes("PENDING");
  const live = pending || states.some((s) => ["RUNNING", "SUSPENDED", "CONFIGURING"].includes(s));
  if (live) button("Cancel", `Cancel job ${id}`, () => api.del(`${api.SLURM}/job/${id}`));
  if (pending && num(job.priority) !== 0) {
    button("Hold", `Hold job ${id}`, () => api.post(`${api.SLURM}/job/${id}`, {hold: true}));
  }
  if (pending && num(job.priority) === 0) {
    button("Release", `Release job ${id}`,
           () => api.post(`${api.SLURM}/job/${id}`, {hold: false}));
  }
  if (states.some((s) => ["RUNNING", "SUSPENDED", "COMPLETED", "FAILED", "CANCELLED",
                          "TIMEOUT", "NODE_FAIL", "PREEMPTED"].includes(s))) {
    button("Requeue", `Requeue job ${id}`, () => api.post(`${api.GANTRY}/job/${id}/requeue`));
  }
  return buttons;
}

export function mount(root, params, ctx) {
  const selects = {};
  const controls = el("div", {class: "filters"});
  for (const name of FILTERS) {
    selects[name] = el("select", {id: "filter-" + name, onchange: () => {
      view.filters[name] = selects[name].value;
      draw();
    }});
    controls.append(el("label", {}, name === "qos" ? "QOS" : name, selects[name]));
  }
  const text = el("input", {type: "search", id: "filter-text", placeholder: "id or name",
                            value: view.text, oninput: () => { view.text = text.value; draw(); }});
  controls.append(el("label", {}, "find", text));
  const live = el("input", {type: "checkbox", id: "live", checked: true});
  controls.append(el("label", {class: "inline"}, live, "live"));
  const count = el("p", {class: "muted", id: "job-count"});
  const table = el("table", {class: "list jobs", id: "jobs-table"});
  root.append(el("h1", {}, "Jobs"), controls, count, table);

  let rows = [];
  function draw() {
    const shown = rows.filter((r) => FILTERS.every((f) => !view.filters[f] ||
                                                       (f === "state" ? r.state : r[f]) ===
                                                           view.filters[f]) &&
                                     (!view.text || String(r.id).includes(view.text) ||
                                      (r.name || "").includes(view.text)));
    const sign = view.descending ? -1 : 1;
    shown.sort((a, b) => {
      const x = a[view.sort], y = b[view.sort];
      return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y))) ||
             a.id - b.id;
    });
    count.textContent = `${shown.length} of ${rows.length} jobs`;
    const head = el("tr", {}, COLUMNS.map((c) => el("th", {
      class: (c.num ? "num " : "") + "sortable" + (view.sort === c.key ? " sorted" : ""),
      dataset: {column: c.key},
      onclick: () => {
        view.descending = view.sort === c.key ? !view.descending : false;
        view.sort = c.key;
        draw();
      }}, c.title + (view.sort === c.key ? (view.descending ? " ▼" : " ▲") : ""))),
                    el("th", {}, ""));
    fill(table, el("thead", {}, head), el("tbody", {}, shown.map((r) => el("tr", {
      dataset: {job: r.id}, class: "clickable", onclick: () => { location.hash = `#/job/${r.id}`; }},
      el("td", {class: "num"}, el("a", {href: `#/job/${r.id}`}, String(r.id))),
      el("td", {}, r.name), el("td", {}, r.user), el("td", {}, r.account),
      el("td", {}, r.partition), el("td", {}, r.qos),
      el("td", {}, el("span", {class: "state state-" + r.state.toLowerCase()}, r.state),
         r.flags.length ? " " + r.flags.join(",") : ""),
      el("td", {class: "num"}, r.time ? duration(r.time) : ""),
      el("td", {}, r.nodes), el("td", {class: "num"}, String(r.cpus)),
      el("td", {class: "num"}, r.gpus ? String(r.gpus) : ""),
      el("td", {class: "num"}, String(r.priority)),
      el("td", {class: "actions"}, actionsFor(r.job, ctx))))));
  }

  function fillSelects() {
    for (const name of FILTERS) {
      const values = new Set(rows.map((r) => (name === "state" ? r.state : r[name])));
      if (view.filters[name]) values.add(view.filters[name]);
      // Rebuilt only when the choices change: a rebuild closes a list the user has open.
      const key = [...values].filter(Boolean).sort().join("\u0000");
      if (selects[name].dataset.choices === key) continue;
      selects[name].dataset.choices = key;
      fill(selects[name], el("option", {value: ""}, "all"),
                                    [...values].filter(Boolean).sort().map((v) =>
                                        el("option", {value: v, selected: v === view.filters[name]},
                                           v)));
    }
  }

  return {
    title: "Jobs",
    live: true,
    update: async () => {
      if (rows.length > 0 && !live.checked) return;
      const doc = await api.get(api.SLURM + "/jobs");
      const now = Math.floor(Date.now() / 1000);
      rows = (doc.jobs || []).map((j) => row(j, now));
      fillSelects();
      draw();
    },
  };
}
