// Nodes: each pool as a map of its nodes: state, CPUs and memory allocated, and one square per
// GPU coloured by the job that holds it; drain (with a reason) and resume for operators.
import * as api from "./api.js";
import {el, fill, expandHostlist, parseGres, jobColour, megabytes, meter} from "./util.js";
import {nodeStateName} from "./overview.js";

// The pool of a node named CLUSTER-POOL-INDEX (as Gantry names them): "demo-a4".
function poolOf(name) { return name.replace(/-\d+$/, ""); }

// Reasons being typed, by node, kept across redraws.
const typed = {};

export function mount(root, params, ctx) {
  const map = el("div", {id: "node-map"});
  root.append(el("h1", {}, "Nodes"), map);
  return {
    title: "Nodes",
    live: true,
    update: async () => {
      // Not while someone types a reason: the redraw would take the field away.
      if (map.contains(document.activeElement) && document.activeElement.tagName === "INPUT") {
        return;
      }
      const [nodesDoc, jobsDoc] = await Promise.all([api.get(api.SLURM + "/nodes"),
                                                     api.get(api.SLURM + "/jobs")]);
      // node -> GPU index -> job
      const holders = {};
      for (const job of jobsDoc.jobs || []) {
        const states = job.job_state || [];
        if (!states.some((s) => s === "RUNNING" || s === "SUSPENDED" || s === "CONFIGURING")) {
          continue;
        }
        const names = expandHostlist(job.nodes);
        (job.gres_detail || []).forEach((text, i) => {
          const node = names[i];
          if (!node) return;
          for (const idx of parseGres(text).idx) {
            (holders[node] = holders[node] || {})[idx] = job;
          }
        });
      }
      const pools = {};
      for (const node of nodesDoc.nodes || []) (pools[poolOf(node.name)] ||= []).push(node);
      fill(map, ...Object.entries(pools).map(([pool, nodes]) => el("section",
          {class: "pool", dataset: {pool}},
          el("h2", {}, pool, el("span", {class: "subtle"},
                                ` ${nodes.length} nodes · partitions ` +
                                    [...new Set(nodes.flatMap((n) => n.partitions || []))]
                                        .join(", "))),
          el("div", {class: "node-grid"},
             nodes.map((n) => nodeCard(n, holders[n.name] || {}, ctx))))));
    },
  };
}

function nodeCard(node, holders, {act}) {
  const state = nodeStateName(node);
  const gpus = parseGres(node.gres).count;
  const slots = [];
  for (let i = 0; i < gpus; i++) {
    const job = holders[i];
    slots.push(el("a", {
      class: "gpu" + (job ? " held" : ""),
      href: job ? `#/job/${job.job_id}` : undefined,
      title: job ? `GPU ${i}: job ${job.job_id} (${job.user_name})` : `GPU ${i}: free`,
      dataset: {gpu: i, job: job ? job.job_id : ""},
      style: job ? {background: jobColour(job.job_id)} : {}},
                    job ? String(job.job_id) : ""));
  }
  const drained = (node.state || []).includes("DRAIN") || (node.state || []).includes("DOWN");
  const reason = el("input", {type: "text", placeholder: "reason", class: "reason",
                              value: typed[node.name] || "",
                              "aria-label": `reason to drain ${node.name}`,
                              oninput: (e) => { typed[node.name] = e.target.value; }});
  const control = drained
      ? el("button", {type: "button", class: "small", dataset: {action: "resume"},
                      onclick: () => act(`Resume ${node.name}`, () =>
                          api.post(`${api.SLURM}/node/${node.name}`, {state: ["RESUME"]}))},
           "Resume")
      : el("form", {class: "drain", onsubmit: (e) => {
          e.preventDefault();
          delete typed[node.name];
          act(`Drain ${node.name}`, () => api.post(`${api.SLURM}/node/${node.name}`,
                                                   {state: ["DRAIN"],
                                                    reason: reason.value || "drained from the dashboard"}));
        }}, reason, el("button", {type: "submit", class: "small", dataset: {action: "drain"}},
                       "Drain"));
  return el("div", {class: "node state-border-" + state.toLowerCase(), dataset: {node: node.name}},
            el("div", {class: "node-head"}, el("strong", {}, node.name),
               el("span", {class: "state state-" + state.toLowerCase()}, state)),
            node.reason ? el("div", {class: "reason-text"}, `${node.reason}` +
                                 (node.reason_set_by ? ` (${node.reason_set_by})` : "")) : null,
            meter("CPUs", node.alloc_cpus || 0, node.cpus || 0),
            meter("Memory", node.alloc_memory || 0, node.real_memory || 0, megabytes),
            gpus > 0 ? el("div", {class: "gpus"}, slots) : null,
            control);
}
