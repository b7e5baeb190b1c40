// The dashboard's shell: sign-in with a token, the page router (#/jobs, #/job/12, ...), the
// flash line for what an action did, and live updates (each page's update() every few seconds
// while the tab is visible).
import * as api from "./api.js";
import {el, fill, when} from "./util.js";
import * as overview from "./overview.js";
import * as jobs from "./jobs.js";
import * as job from "./job.js";
import * as nodes from "./nodes.js";
import * as accounting from "./accounting.js";
import * as submit from "./submit.js";

const PAGES = {overview, jobs, job, nodes, accounting, submit};
const REFRESH_MS = 5000;

let current = null;  // {name, update, live}
let timer = null;

export function flash(text, kind = "ok") {
  const box = document.getElementById("flash");
  box.textContent = text;
  box.className = kind;
  box.hidden = false;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { box.hidden = true; }, kind === "ok" ? 6000 : 15000);
}

// Runs an action (a promise factory) and says how it went; resolves to whether it succeeded.
export async function act(description, action) {
  try {
    await action();
    flash(description + ": done");
    if (current) await refresh();
    return true;
  } catch (e) {
    flash(`${description}: ${e.message}${e.source ? " (" + e.source + ")" : ""}`, "error");
    return false;
  }
}

async function refresh() {
  if (!current || !current.update) return;
  try {
    await current.update();
    document.getElementById("updated").textContent = "updated " + when(Date.now() / 1000);
    document.getElementById("updated").className = "";
  } catch (e) {
    if (e.status === 401) return showSignIn(e.message);
    document.getElementById("updated").textContent = "update failed: " + e.message;
    document.getElementById("updated").className = "error";
  }
}

function showSignIn(why) {
  api.signOut();
  clearInterval(timer);
  current = null;
  document.getElementById("user").textContent = "";
  document.getElementById("sign-out").hidden = true;
  const input = el("textarea", {id: "token", rows: 4, placeholder: "SLURM_JWT=eyJ...",
                                spellcheck: "false", autocomplete: "off"});
  const form = el("form", {class: "card sign-in", onsubmit: (e) => {
    e.preventDefault();
    api.signIn(input.value.replace(/^\s*SLURM_JWT=/, ""));
    route();
  }},
    el("h1", {}, "Sign in"),
    el("p", {}, "Paste a token made for you by ", el("code", {}, "scontrol token"),
       " (for a day: ", el("code", {}, "scontrol token lifespan=86400"), ")."),
    why ? el("p", {class: "error"}, why) : null,
    input,
    el("button", {type: "submit", id: "sign-in"}, "Sign in"));
  const main = document.getElementById("page");
  fill(main, form);
}

async function route() {
  // A token handed over in the address (#token=...) is taken and removed from the address.
  const handed = location.hash.match(/^#token=([^&]+)(?:&go=(.*))?$/);
  if (handed) {
    api.signIn(decodeURIComponent(handed[1]));
    history.replaceState(null, "", "#" + (handed[2] ? decodeURIComponent(handed[2]) : "/overview"));
  }
  if (!api.token()) return showSignIn("");
  const left = api.tokenLifeLeft();
  if (left !== null && left <= 0) return showSignIn("Your token has expired.");
  document.getElementById("user").textContent = api.userOfToken() || "(token)";
  document.getElementById("sign-out").hidden = false;

  const [name, ...params] = (location.hash.replace(/^#\/?/, "") || "overview").split("/");
  const page = PAGES[name] || overview;
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.dataset.page === name ||
                                        (name === "job" && link.dataset.page === "jobs"));
  }
  clearInterval(timer);
  const main = document.getElementById("page");
  fill(main);
  current = {name, ...page.mount(main, params.map(decodeURIComponent), {act, flash})};
  document.title = `Gantry: ${current.title || name}`;
  await refresh();
  if (current.live) {
    timer = setInterval(() => {
      if (document.visibilityState === "visible") refresh();
    }, REFRESH_MS);
  }
}

async function showCluster() {
  try {
    const ping = await api.get(api.SLURM + "/ping");
    document.getElementById("cluster").textContent = ping.meta.slurm.cluster;
  } catch (e) {
    // Shown once signed in.
  }
}

document.getElementById("sign-out").addEventListener("click", () => {
  api.signOut();
  location.hash = "#/overview";
  showSignIn("");
});
window.addEventListener("hashchange", route);
route().then(showCluster);
