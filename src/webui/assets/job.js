// One job: its facts, why it is where it is (gantry explain), its steps and usage from the
// accounting record, the tail of its output file (for its own user), and the actions.
import * as api from "./api.js";
import {el, fill, num, duration, when, megabytes} from "./util.js";
import {actionsFor} from "./jobs.js";
import {exitText} from "./overview.js";

export function mount(root, params, ctx) {
  const id = params[0];
  const head = el("div", {class: "job-head"});
  const facts = el("section", {class: "card", id: "job-facts"});
  const explain = el("section", {class: "card", id: "job-explain"});
  const steps = el("section", {class: "card wide", id: "job-steps"});
  const output = el("section", {class: "card wide", id: "job-output"});
  root.append(head, el("div", {class: "grid"}, facts, explain, steps, output));

  return {
    title: `job ${id}`,
    live: true,
    update: async () => {
      const [live, record, why, tail] = await Promise.allSettled([
        api.get(`${api.SLURM}/job/${id}`),
        api.get(`${api.SLURMDB}/job/${id}`),
        api.get(`${api.GANTRY}/job/${id}/explain`),
        api.get(`${api.GANTRY}/job/${id}/output?lines=200`),
      ]);
      const job = live.status === "fulfilled" ? (live.value.jobs || [])[0] : null;
      const db = record.status === "fulfilled" ? (record.value.jobs || [])[0] : null;
      if (!job && !db) {
        fill(head, el("h1", {}, `Job ${id}`));
        fill(facts, el("p", {class: "error"}, (live.reason || record.reason).message));
        return;
      }
      const states = job ? job.job_state : db.state.current;
      fill(head,
          el("h1", {}, `Job ${id} `, el("span", {class: "subtle"}, job ? job.name : db.name)),
          el("span", {class: "state state-" + states[0].toLowerCase(), id: "job-state"},
             states.join(",")),
          el("span", {class: "actions"}, job ? actionsFor(job, ctx) : []));
      fill(facts, el("h2", {}, "Facts"), factsTable(job, db));
      fill(explain,
          el("h2", {}, "Why"),
          why.status === "fulfilled" ? el("pre", {class: "explain"}, why.value.explanation)
                                     : el("p", {class: "muted"}, why.reason.message));
      fill(steps, el("h2", {}, "Steps and usage"), stepsTable(db));
      fill(output,
          el("h2", {}, "Output", tail.status === "fulfilled" && tail.value.path
                                     ? el("span", {class: "subtle"}, " " + tail.value.path) : ""),
          tail.status === "fulfilled"
              ? el("pre", {class: "output", id: "output-text"},
                   (tail.value.truncated ? "…\n" : "") + tail.value.text)
              : el("p", {class: "muted", id: "output-text"}, tail.reason.message));
    },
  };
}

function factsTable(job, db) {
  const rows = [];
  const add = (name, value) => {
    if (value !== "" && value !== null && value !== undefined) rows.push([name, String(value)]);
  };
  if (job) {
    add("User", `${job.user_name} (${job.user_id})`);
    add("Account", job.account);
    add("Partition", job.partition);
    add("QOS", job.qos);
    add("Priority", num(job.priority));
    add("Reason", job.state_reason !== "None" ? job.state_reason : "");
    add("Nodes", job.nodes);
    add("CPUs", num(job.cpus));
    add("GPUs", (job.gres_detail || []).join(" "));
    add("Memory per node", num(job.memory_per_node) ? megabytes(num(job.memory_per_node)) : "");
    add("Time limit", num(job.time_limit) === null ? "" : duration(num(job.time_limit) * 60));
    add("Submitted", when(num(job.submit_time)));
    add("Started", when(num(job.start_time)));
    add("Ends", when(num(job.end_time)));
    add("Working directory", job.current_working_directory);
    add("Command", job.command);
    add("Exit code", exitText(job.exit_code));
  } else {
    add("User", db.user);
    add("Account", db.account);
    add("Partition", db.partition);
    add("Nodes", db.nodes);
    add("Submitted", when(db.time.submission));
    add("Started", when(db.time.start));
    add("Ended", when(db.time.end));
    add("Exit code", exitText(db.exit_code));
  }
  return el("table", {class: "facts"},
            rows.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, value))));
}

function stepsTable(db) {
  if (!db) return el("p", {class: "muted"}, "No accounting record yet.");
  const used = (db.time.total || {}).seconds || 0;
  const summary = el("p", {},
                     `Elapsed ${duration(db.time.elapsed)}, CPU time ${duration(used)}` +
                         ` (user ${duration((db.time.user || {}).seconds || 0)},` +
                         ` system ${duration((db.time.system || {}).seconds || 0)}).`);
  const steps = db.steps || [];
  if (steps.length === 0) return el("div", {}, summary, el("p", {class: "muted"}, "No steps."));
  const maxOf = (step, type) => {
    const found = ((((step.tres || {}).requested || {}).max) || []).find((t) => t.type === type);
    return found ? found.count : null;
  };
  return el("div", {}, summary, el("table", {class: "list"},
      el("thead", {}, el("tr", {}, ["Step", "Name", "State", "Elapsed", "Exit", "Nodes",
                                    "Max RSS"].map((h) => el("th", {}, h)))),
      el("tbody", {}, steps.map((s) => el("tr", {},
          el("td", {}, s.step.id), el("td", {}, s.step.name),
          el("td", {}, (s.state || []).join(",")),
          el("td", {}, duration(s.time.elapsed)), el("td", {}, exitText(s.exit_code)),
          el("td", {}, (s.nodes || {}).range || ""),
          el("td", {}, maxOf(s, "mem") === null ? "" : megabytes(maxOf(s, "mem") / 1048576)))))));
}
