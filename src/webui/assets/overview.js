// Overview: nodes by state, what is allocated, the queue by partition and reason, utilization
// and queue length over the last hours (from the accounting records), and recent failures.
import * as api from "./api.js";
import {el, fill, num, parseGres, megabytes, meter, lineChart, when, duration} from "./util.js";

const WINDOW_S = 6 * 3600;
const FAILED = new Set(["FAILED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY", "BOOT_FAIL",
                        "DEADLINE"]);

export function mount(root) {
  const boxes = {
    nodes: el("section", {class: "card", id: "nodes-by-state"}),
    allocated: el("section", {class: "card", id: "allocated"}),
    queue: el("section", {class: "card", id: "queue"}),
    history: el("section", {class: "card wide", id: "history"}),
    failures: el("section", {class: "card wide", id: "failures"}),
  };
  root.append(el("h1", {}, "Overview"),
              el("div", {class: "grid"}, Object.values(boxes)));
  return {title: "Overview", live: true, update: () => update(boxes)};
}

// A node's state as sinfo's words: its base state with DRAIN/DOWN flags first.
export function nodeStateName(node) {
  const states = node.state || [];
  if (states.includes("DRAIN")) {
    return states.some((s) => s === "ALLOCATED" || s === "MIXED") ? "DRAINING" : "DRAINED";
  }
  return states[0] || "UNKNOWN";
}

async function update(boxes) {
  const now = Math.floor(Date.now() / 1000);
  const [nodesDoc, jobsDoc, historyDoc] = await Promise.all([
    api.get(api.SLURM + "/nodes"),
    api.get(api.SLURM + "/jobs"),
    api.get(`${api.SLURMDB}/jobs?start_time=${now - WINDOW_S}&end_time=${now}`),
  ]);
  const nodes = nodesDoc.nodes || [];
  const jobs = jobsDoc.jobs || [];

  const byState = {};
  for (const n of nodes) byState[nodeStateName(n)] = (byState[nodeStateName(n)] || 0) + 1;
  fill(boxes.nodes,
      el("h2", {}, "Nodes"),
      el("div", {class: "big"}, String(nodes.length)),
      el("ul", {class: "states"},
         Object.entries(byState).sort().map(([state, count]) =>
             el("li", {}, el("span", {class: "state state-" + state.toLowerCase()}, state),
                " ", String(count)))));

  const sum = (f) => nodes.reduce((total, n) => total + f(n), 0);
  const cpus = sum((n) => n.cpus || 0), allocCpus = sum((n) => n.alloc_cpus || 0);
  const mem = sum((n) => n.real_memory || 0), allocMem = sum((n) => n.alloc_memory || 0);
  const gpus = sum((n) => parseGres(n.gres).count);
  const allocGpus = sum((n) => parseGres(n.gres_used).count);
  fill(boxes.allocated,
      el("h2", {}, "Allocated"),
      meter("CPUs", allocCpus, cpus),
      gpus > 0 ? meter("GPUs", allocGpus, gpus) : null,
      meter("Memory", allocMem, mem, megabytes));

  const running = jobs.filter((j) => (j.job_state || []).includes("RUNNING")).length;
  const pending = jobs.filter((j) => (j.job_state || []).includes("PENDING"));
  const queue = {};
  for (const j of pending) {
    const key = `${j.partition}\u0000${j.state_reason}`;
    queue[key] = (queue[key] || 0) + 1;
  }
  fill(boxes.queue,
      el("h2", {}, "Queue"),
      el("p", {}, `${running} running, ${pending.length} pending`),
      pending.length === 0 ? el("p", {class: "muted"}, "Nothing is waiting.") :
      el("table", {class: "list"},
         el("thead", {}, el("tr", {}, el("th", {}, "Partition"), el("th", {}, "Reason"),
                            el("th", {class: "num"}, "Jobs"))),
         el("tbody", {}, Object.entries(queue).sort((a, b) => b[1] - a[1]).map(([key, count]) => {
           const [partition, reason] = key.split("\u0000");
           return el("tr", {}, el("td", {}, partition), el("td", {}, reason),
                     el("td", {class: "num"}, String(count)));
         }))));

  const records = historyDoc.jobs || [];
  fill(boxes.history, el("h2", {}, "The last six hours"),
                                history(records, now - WINDOW_S, now, cpus, gpus));

  const failures = records.filter((r) => (r.state.current || []).some((s) => FAILED.has(s)))
                       .sort((a, b) => b.time.end - a.time.end).slice(0, 10);
  fill(boxes.failures,
      el("h2", {}, "Recent failures"),
      failures.length === 0 ? el("p", {class: "muted"}, "No job failed in the last six hours.") :
      el("table", {class: "list"},
         el("thead", {}, el("tr", {}, ["Job", "Name", "User", "State", "Exit", "Ended", "Nodes"]
                                          .map((h) => el("th", {}, h)))),
         el("tbody", {}, failures.map((r) => el("tr", {},
             el("td", {}, el("a", {href: `#/job/${r.job_id}`}, String(r.job_id))),
             el("td", {}, r.name), el("td", {}, r.user),
             el("td", {}, el("span", {class: "state state-failed"}, r.state.current.join(","))),
             el("td", {}, exitText(r.exit_code)), el("td", {}, when(r.time.end)),
             el("td", {}, r.nodes))))));
}

export function exitText(code) {
  if (!code) return "";
  const rc = num(code.return_code) ?? 0;
  const signal = code.signal && num(code.signal.id);
  return `${rc}:${signal || 0}`;
}

// Allocated CPUs and GPUs (percent of the cluster) and jobs waiting over [t0, t1], from the
// records' submission, start and end times: exact steps (every start, end and submission is a
// point), or averages over 120 steps when the records change more often than a chart can show.
function history(records, t0, t1, cpus, gpus) {
  const gpuOf = (r) => ((r.tres && r.tres.allocated) || [])
                           .filter((t) => t.type === "gres" && t.name.startsWith("gpu"))
                           .reduce((total, t) => total + t.count, 0);
  const cpuOf = (r) => ((r.tres && r.tres.allocated) || [])
                           .filter((t) => t.type === "cpu").reduce((total, t) => total + t.count, 0);
  // (time, cpus, gpus, waiting) changes.
  const changes = [];
  for (const r of records) {
    const start = r.time.start || 0, end = r.time.end || 0, submit = r.time.submission;
    const waitEnd = start || end;
    changes.push([submit, 0, 0, 1]);
    if (waitEnd) changes.push([waitEnd, 0, 0, -1]);
    if (start) {
      changes.push([start, cpuOf(r), gpuOf(r), 0]);
      if (end) changes.push([end, -cpuOf(r), -gpuOf(r), 0]);
    }
  }
  changes.sort((a, b) => a[0] - b[0]);
  const cpu = [], gpu = [], waiting = [];
  const percent = (value, total) => (total > 0 ? 100 * value / total : 0);
  let c = 0, g = 0, w = 0, i = 0;
  for (; i < changes.length && changes[i][0] <= t0; i++) {
    c += changes[i][1];
    g += changes[i][2];
    w += changes[i][3];
  }
  const MOST_POINTS = 2000;
  const exact = changes.length - i <= MOST_POINTS;
  const push = (t) => {
    cpu.push([t, percent(c, cpus)]);
    gpu.push([t, percent(g, gpus)]);
    waiting.push([t, w]);
  };
  push(t0);
  if (exact) {
    for (; i < changes.length && changes[i][0] <= t1; i++) {
      push(changes[i][0]);  // the value just before, then after
      c += changes[i][1];
      g += changes[i][2];
      w += changes[i][3];
      push(changes[i][0]);
    }
  } else {
    // Averages: each step's integral over its length.
    const STEPS = 120;
    for (let k = 1; k <= STEPS; k++) {
      const a = t0 + (t1 - t0) * (k - 1) / STEPS, b = t0 + (t1 - t0) * k / STEPS;
      let ci = 0, gi = 0, wi = 0, at = a;
      for (; i < changes.length && changes[i][0] <= b; i++) {
        ci += c * (changes[i][0] - at);
        gi += g * (changes[i][0] - at);
        wi += w * (changes[i][0] - at);
        at = changes[i][0];
        c += changes[i][1];
        g += changes[i][2];
        w += changes[i][3];
      }
      ci += c * (b - at);
      gi += g * (b - at);
      wi += w * (b - at);
      cpu.push([b, percent(ci / (b - a), cpus)]);
      gpu.push([b, percent(gi / (b - a), gpus)]);
      waiting.push([b, wi / (b - a)]);
    }
  }
  push(t1);
  const use = [{name: "CPUs allocated", points: cpu, colour: "#2f6fdf"}];
  if (gpus > 0) use.push({name: "GPUs allocated", points: gpu, colour: "#d9822b"});
  return el("div", {class: "charts"},
            el("div", {}, el("h3", {}, "Utilization"),
               lineChart(use, t0, t1, {unit: "%", max: 100})),
            el("div", {}, el("h3", {}, "Jobs waiting"),
               lineChart([{name: "pending jobs", points: waiting, colour: "#8a5cc2"}], t0, t1)),
            el("p", {class: "muted"},
               `From the accounting records of ${records.length} jobs` +
                   (exact ? "." : `; averages over ${duration((t1 - t0) / 120)}.`)));
}
