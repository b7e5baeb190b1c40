// Submit: a batch script (typed, or started from a template) and sbatch's common options, sent
// to /slurm/v0.0.42/job/submit; the API's refusal is shown with the field it names.
import * as api from "./api.js";
import {el, fill} from "./util.js";

const TEMPLATES = {
  "Hello": {script: "#!/bin/bash\necho \"hello from $(hostname)\"\nsleep 30\n", tasks: 1},
  "GPU training": {
    script: "#!/bin/bash\n# One task per GPU; each sees its own devices.\n" +
            "srun bash -c 'echo \"rank $SLURM_PROCID on $(hostname): GPUs $CUDA_VISIBLE_DEVICES\"'\n" +
            "sleep 60\n",
    tasks: 1, gpus: 1, partition: "gpu"},
  "Array of 10": {script: "#!/bin/bash\necho \"task $SLURM_ARRAY_TASK_ID\"\nsleep 20\n",
                  tasks: 1, array: "0-9"},
};

export function mount(root, params, {act, flash}) {
  const field = (name, label, attrs = {}) => {
    const input = el("input", {id: "job-" + name, name, ...attrs});
    return [input, el("label", {}, label, input)];
  };
  const script = el("textarea", {id: "job-script", rows: 12, spellcheck: "false"});
  const [name, nameLabel] = field("name", "Name", {value: "dashboard-job"});
  const partition = el("select", {id: "job-partition"});
  const [account, accountLabel] = field("account", "Account", {placeholder: "default"});
  const [qos, qosLabel] = field("qos", "QOS", {placeholder: "default"});
  const [time, timeLabel] = field("time", "Time limit (minutes)", {type: "number", min: 1,
                                                                     value: 10});
  const [nodes, nodesLabel] = field("nodes", "Nodes", {type: "number", min: 1, value: 1});
  const [tasks, tasksLabel] = field("tasks", "Tasks", {type: "number", min: 1, value: 1});
  const [gpus, gpusLabel] = field("gpus", "GPUs per node", {type: "number", min: 0, value: 0});
  const [array, arrayLabel] = field("array", "Array", {placeholder: "e.g. 0-9%2"});
  const [cwd, cwdLabel] = field("cwd", "Working directory", {value: "/tmp"});
  const template = el("select", {id: "job-template", onchange: () => use(template.value)},
                      el("option", {value: ""}, "start from a template…"),
                      Object.keys(TEMPLATES).map((t) => el("option", {value: t}, t)));
  const result = el("p", {id: "submit-result"});

  function use(key) {
    const t = TEMPLATES[key];
    if (!t) return;
    script.value = t.script;
    tasks.value = t.tasks || 1;
    gpus.value = t.gpus || 0;
    array.value = t.array || "";
    if (t.partition && [...partition.options].some((o) => o.value === t.partition)) {
      partition.value = t.partition;
    }
  }

  const form = el("form", {class: "card submit", id: "submit-form", onsubmit: async (e) => {
    e.preventDefault();
    const job = {
      name: name.value,
      current_working_directory: cwd.value,
      environment: ["PATH=/usr/local/bin:/usr/bin:/bin"],
      time_limit: Number(time.value),
      minimum_nodes: Number(nodes.value),
      tasks: Number(tasks.value),
    };
    if (partition.value) job.partition = partition.value;
    if (account.value) job.account = account.value;
    if (qos.value) job.qos = qos.value;
    if (array.value) job.array = array.value;
    if (Number(gpus.value) > 0) job.tres_per_node = `gres/gpu:${Number(gpus.value)}`;
    let submitted = null;
    await act("Submit", async () => {
      submitted = await api.post(api.SLURM + "/job/submit", {job: {...job, script: script.value}});
    });
    if (submitted) {
      fill(result, "Submitted batch job ",
                             el("a", {href: `#/job/${submitted.job_id}`, id: "submitted-job"},
                                String(submitted.job_id)));
      flash(`Submitted batch job ${submitted.job_id}`);
    }
  }},
    el("div", {class: "row"}, template),
    el("label", {class: "wide"}, "Script", script),
    el("div", {class: "fields"}, nameLabel, el("label", {}, "Partition", partition), accountLabel,
       qosLabel, timeLabel, nodesLabel, tasksLabel, gpusLabel, arrayLabel, cwdLabel),
    el("button", {type: "submit", id: "submit"}, "Submit"),
    result);
  root.append(el("h1", {}, "Submit a job"), form);
  use("Hello");

  return {
    title: "Submit",
    live: false,
    update: async () => {
      const doc = await api.get(api.SLURM + "/partitions");
      const chosen = partition.value;
      fill(partition, el("option", {value: ""}, "default"),
                                (doc.partitions || []).map((p) => el("option", {value: p.name},
                                                                     p.name)));
      partition.value = chosen;
    },
  };
}
