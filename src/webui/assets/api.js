// The REST API as the signed-in user: every call carries the user's token (scontrol token), and
// gantryd decides what that user may see and do, exactly as for the commands. The token lives
// in this tab's sessionStorage only.

const KEY = "gantry.token";
export const SLURM = "/slurm/v0.0.42";
export const SLURMDB = "/slurmdb/v0.0.42";
export const GANTRY = "/gantry/v1";

export function token() { return sessionStorage.getItem(KEY); }
export function signIn(value) { sessionStorage.setItem(KEY, value.trim()); }
export function signOut() { sessionStorage.removeItem(KEY); }

// The user the token names (its "sun" claim), "" when it cannot be read.
export function userOfToken(value = token()) {
  try {
    const payload = value.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload)).sun || "";
  } catch (e) {
    return "";
  }
}

// Seconds until the token expires (negative when it has), null when unknown.
export function tokenLifeLeft(value = token()) {
  try {
    const payload = value.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload)).exp - Date.now() / 1000;
  } catch (e) {
    return null;
  }
}

export class ApiError extends Error {
  constructor(status, errors) {
    const first = (errors && errors[0]) || {};
    // "what was being done: why" (description: error), as the commands print their refusals.
    const why = first.error || `HTTP ${status}`;
    super(first.description && first.description !== why ? `${first.description}: ${why}` : why);
    this.status = status;
    this.errors = errors || [];
    this.source = first.source || "";
  }
}

// How long a call may take before the page gives up on it (and says so): a call that never
// answers must not stop the live updates.
const TIMEOUT_MS = 30000;

// Calls METHOD PATH (with a JSON body when given); resolves to the answer's JSON, rejects with an
// ApiError carrying the API's own words (errors[].error) when the answer is not a success.
export async function call(method, path, body) {
  const headers = {"X-SLURM-USER-TOKEN": token() || ""};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  let response = null;
  let doc = null;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store", signal: abort.signal,
    });
    doc = await response.json();
  } catch (e) {
    if (abort.signal.aborted) {
      throw new ApiError(0, [{error: `${method} ${path}: no answer in ${TIMEOUT_MS / 1000} s`}]);
    }
    if (response === null) throw new ApiError(0, [{error: `${method} ${path}: ${e.message}`}]);
    throw new ApiError(response.status, [{error: `HTTP ${response.status} without JSON`}]);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok || (doc.errors && doc.errors.length > 0)) {
    throw new ApiError(response.status, doc.errors);
  }
  return doc;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body ?? {});
export const del = (path) => call("DELETE", path);
