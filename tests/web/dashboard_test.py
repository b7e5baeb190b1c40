"""The web dashboard in a real browser (Debian's chromium, driven through chromium-driver by
python3-selenium) against a running cluster, as two unix users and root:

  a user signs in with their token, submits a GPU job from the Submit page, watches it run on
  the Jobs page and on the node map, reads its output and explanation, cancels it; another
  user's cancel of that job is refused with gantryd's words; root drains a node with a reason
  and resumes it, which a plain user may not; the overview and accounting pages show the
  cluster. Screenshots of each page go to SHOTS_DIR.

usage: dashboard_test.py STATE_DIR WORK_DIR USER1 USER2 SHOTS_DIR
"""
import os
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

STATE, WORK, USER1, USER2, SHOTS = sys.argv[1:6]
with open(os.path.join(STATE, "run", "restd.url")) as f:
    URL = f.read().strip()
STEP = 0


def as_user(user, *argv):
    cmd = list(argv) if user == "root" else ["runuser", "-u", user, "--", "env",
                                             "PATH=" + os.environ["PATH"],
                                             "GANTRY_CONF=" + os.environ["GANTRY_CONF"]] + list(argv)
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def token(user):
    return as_user(user, "scontrol", "token").strip().split("=", 1)[1]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # This machine's network is closed: no background connections, no first-run work.
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic", "--window-size=1400,1000",
                # The cluster's own CA signed the daemon's certificate.
                "--ignore-certificate-errors", "--user-data-dir=" + tempfile.mkdtemp()):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def step(what):
    global STEP
    STEP += 1
    print("%2d. %s" % (STEP, what), flush=True)


def wait(d, what, condition, seconds=60):
    try:
        return WebDriverWait(d, seconds, poll_frequency=0.25).until(lambda _: condition())
    except TimeoutException:
        shot(d, "failed-%d" % STEP)
        # What the page showed, for a log that outlives the screenshot (CI keeps only text).
        print("page status: %r, flash: %r" % (text_of(d, "#updated"), flash(d)))
        print("page text: %r" % text_of(d, "#page")[:1500])
        for entry in d.get_log("browser"):
            print("console: %s %s" % (entry["level"], entry["message"][:500]))
        raise AssertionError("timed out waiting for " + what)


def shot(d, name):
    d.save_screenshot(os.path.join(SHOTS, name + ".png"))


def text_of(d, css):
    """The text of the first element `css` selects ("" when none), read in one step: the pages
    redraw every few seconds, so an element found in one call may be gone in the next."""
    return d.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';", css)


def click(d, css):
    """Clicks the first element `css` selects, found and clicked in one step (the pages redraw);
    fails when there is none."""
    assert d.execute_script(
        "const e = document.querySelector(arguments[0]); if (e) e.click(); return !!e;", css), css


def flash(d):
    return text_of(d, "#flash")


def loaded(d, what, condition):
    """Waits for `condition` after a navigation. A page whose shell never arrived (no #page: the
    browser's TLS connection to gantry-restd failed, which GnuTLS inside libmicrohttpd logs as
    "received handshake message out of context"; a known defect, in the closing notes) is
    reloaded once, and says so; any other wait fails as `wait` does."""
    try:
        return WebDriverWait(d, 20, poll_frequency=0.25).until(lambda _: condition())
    except TimeoutException:
        if d.execute_script("return document.getElementById('page') !== null"):
            return wait(d, what, condition, 40)
    print("%s: the page's shell did not load (%r); reloading once" %
          (what, d.execute_script("return document.readyState + ' ' + document.title")))
    d.refresh()
    return wait(d, what, condition)


def sign_in(d, user):
    d.get(URL + "/ui/")
    loaded(d, "the sign-in form", lambda: d.find_elements(By.ID, "token"))
    d.find_element(By.ID, "token").send_keys("SLURM_JWT=" + token(user))
    d.find_element(By.ID, "sign-in").click()
    wait(d, "the user's name", lambda: text_of(d, "#user") == user)
    wait(d, "the overview", lambda: "updated" in text_of(d, "#updated"))


def go(d, page):
    d.get(URL + "/ui/#/" + page)
    d.refresh()  # the hash alone does not reload; the token stays in this tab's session
    loaded(d, page, lambda: "updated" in text_of(d, "#updated"))


def job_row(d, job_id):
    rows = d.find_elements(By.CSS_SELECTOR, 'tr[data-job="%s"]' % job_id)
    return rows[0] if rows else None


def no_script_errors(d):
    """The console holds no script error (a refused call's 403 is logged by the browser as a
    failed resource load, which the tests cause on purpose)."""
    errors = [e["message"] for e in d.get_log("browser")
              if e["level"] == "SEVERE" and "Failed to load resource" not in e["message"]]
    assert not errors, errors


def main():
    os.makedirs(SHOTS, exist_ok=True)
    d = browser()
    other = browser()
    try:
        step("%s signs in with a token" % USER1)
        sign_in(d, USER1)

        step("submits a GPU job from the Submit page, from the GPU template")
        go(d, "submit")
        wait(d, "partitions", lambda: len(Select(d.find_element(By.ID, "job-partition")).options) > 1)
        Select(d.find_element(By.ID, "job-template")).select_by_visible_text("GPU training")
        script = d.find_element(By.ID, "job-script")
        script.clear()
        script.send_keys("#!/bin/bash\necho \"GPUs $CUDA_VISIBLE_DEVICES\"\nsleep 300\n")
        gpus = d.find_element(By.ID, "job-gpus")
        gpus.clear()
        gpus.send_keys("3")
        cwd = d.find_element(By.ID, "job-cwd")
        cwd.clear()
        cwd.send_keys(os.path.join(WORK, USER1))
        shot(d, "submit")
        d.find_element(By.ID, "submit").click()
        wait(d, "the new job's id", lambda: d.find_elements(By.ID, "submitted-job"))
        job_id = d.find_element(By.ID, "submitted-job").text
        assert job_id.isdigit(), job_id
        squeue = as_user(USER1, "squeue", "-h", "-j", job_id, "-o", "%u %P %b")
        assert squeue.split()[:2] == [USER1, "gpu"], squeue

        step("watches job %s start on the Jobs page (live updates)" % job_id)
        # A job whose name is markup: the pages show it as text and run nothing.
        held = as_user(USER1, "sbatch", "--parsable", "--hold", "-p", "cpu", "-D",
                       os.path.join(WORK, USER1), "-J", "<img src=x onerror=window.pwned=1>",
                       "--wrap", "true").strip()
        go(d, "jobs")
        wait(d, "the held job", lambda: "<img src=x" in text_of(d, 'tr[data-job="%s"]' % held))
        assert not d.find_elements(By.CSS_SELECTOR, 'img[src="x"]')
        assert d.execute_script("return window.pwned === undefined")
        # Release it from its row: it runs and ends.
        click(d, 'tr[data-job="%s"] button[data-action="release"]' % held)
        wait(d, "the released job to end", lambda: "COMPLETED" in text_of(d, 'tr[data-job="%s"]' % held))
        assert as_user(USER1, "sacct", "-X", "-n", "-P", "-j", held, "-o", "State").strip() == "COMPLETED"
        wait(d, "the job running", lambda: job_row(d, job_id) is not None and
             "RUNNING" in job_row(d, job_id).text, 90)
        Select(d.find_element(By.ID, "filter-user")).select_by_visible_text(USER1)
        wait(d, "the filter", lambda: all(r.get_attribute("data-job") and USER1 in r.text
                                          for r in d.find_elements(By.CSS_SELECTOR, "tr[data-job]")))
        click(d, 'th[data-column="id"]')  # descending now
        ids = [r.get_attribute("data-job") for r in d.find_elements(By.CSS_SELECTOR, "tr[data-job]")]
        assert ids == sorted(ids, key=int, reverse=True), ids
        shot(d, "jobs")

        step("sees which GPUs the job holds on the node map")
        go(d, "nodes")
        wait(d, "the job's GPUs", lambda: len(d.find_elements(
            By.CSS_SELECTOR, '.gpu[data-job="%s"]' % job_id)) == 3)
        node = d.find_element(By.CSS_SELECTOR, '.gpu[data-job="%s"]' % job_id).find_element(
            By.XPATH, "./ancestor::div[@data-node]").get_attribute("data-node")
        assert node == as_user(USER1, "squeue", "-h", "-j", job_id, "-o", "%N").strip(), node
        shot(d, "nodes")

        step("reads the job's explanation and output")
        go(d, "job/" + job_id)
        wait(d, "the explanation", lambda: "is RUNNING" in text_of(d, "#job-explain"))
        wait(d, "the output", lambda: "GPUs 0,1,2" in text_of(d, "#output-text"), 30)
        shot(d, "job")

        step("%s may not cancel it: the page says gantryd's refusal" % USER2)
        sign_in(other, USER2)
        go(other, "job/" + job_id)
        wait(other, "the job", lambda: other.find_elements(By.CSS_SELECTOR, 'button[data-action="cancel"]'))
        wait(other, "the refusal of the output", lambda: "only the job's user" in text_of(other, "#output-text"))
        click(other, 'button[data-action="cancel"]')
        wait(other, "the refusal", lambda: "Access/permission denied" in flash(other))
        assert "RUNNING" in as_user(USER1, "squeue", "-h", "-j", job_id, "-o", "%T")

        step("%s cancels it" % USER1)
        click(d, '#page .job-head button[data-action="cancel"]')
        wait(d, "the job cancelled", lambda: "CANCELLED" in text_of(d, "#job-state"), 60)
        assert as_user(USER1, "sacct", "-X", "-n", "-P", "-j", job_id, "-o", "State").startswith("CANCELLED")

        step("a plain user may not drain a node")
        go(other, "nodes")
        card = other.find_element(By.CSS_SELECTOR, 'div[data-node="%s"]' % node)
        card.find_element(By.CSS_SELECTOR, "input.reason").send_keys("not mine to drain")
        card.find_element(By.CSS_SELECTOR, 'button[data-action="drain"]').click()
        wait(other, "the refusal", lambda: "Drain %s:" % node in flash(other) and
             "done" not in flash(other))
        assert "drain" not in as_user("root", "sinfo", "-h", "-n", node, "-o", "%T")

        step("root drains the node with a reason, sees it, and resumes it")
        d.delete_all_cookies()
        d.execute_script("sessionStorage.clear()")
        sign_in(d, "root")
        go(d, "nodes")
        card = d.find_element(By.CSS_SELECTOR, 'div[data-node="%s"]' % node)
        card.find_element(By.CSS_SELECTOR, "input.reason").send_keys("GPU 3 fell off the bus")
        card.find_element(By.CSS_SELECTOR, 'button[data-action="drain"]').click()
        wait(d, "the node drained", lambda: "DRAINED" in text_of(d, 'div[data-node="%s"]' % node) and
             "GPU 3 fell off the bus" in text_of(d, 'div[data-node="%s"]' % node))
        reason = as_user("root", "sinfo", "-h", "-n", node, "-o", "%T|%E")
        assert reason.strip() == "drained|GPU 3 fell off the bus", reason
        shot(d, "nodes-drained")
        click(d, 'div[data-node="%s"] button[data-action="resume"]' % node)
        wait(d, "the node resumed", lambda: "IDLE" in text_of(d, 'div[data-node="%s"]' % node))

        step("the overview and accounting pages show the cluster")
        go(d, "overview")
        nodes = set(as_user("root", "sinfo", "-h", "-N", "-o", "%N").split())
        wait(d, "the node count", lambda: text_of(d, "#nodes-by-state .big") == str(len(nodes)))
        assert "GPUs" in text_of(d, "#allocated"), text_of(d, "#allocated")
        shot(d, "overview")
        go(d, "accounting")
        wait(d, "the share tree", lambda: d.find_elements(By.CSS_SELECTOR, '#share-tree tr[data-name="%s"]' % USER1))
        wait(d, "usage", lambda: "CPU hours by user" in text_of(d, "#usage"))
        assert USER1 in text_of(d, "#usage"), text_of(d, "#usage")
        shot(d, "accounting")

        step("no page raised a script error")
        no_script_errors(d)
        no_script_errors(other)
    finally:
        d.quit()
        other.quit()
    print("PASS: screenshots in " + SHOTS)


if __name__ == "__main__":
    main()
