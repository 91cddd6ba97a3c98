#!/usr/bin/env python3
"""The real `amail inbox` on a mailbox, as a person sees it: started in a
terminal (tmux, 200x40, a fresh AMAIL_HOME), its screen read back with
capture-pane every few milliseconds until the inbox is loaded and live.

The headless rows (`examples/first_frame`) time the load and the frames;
this times the whole binary: its start-up, the file watcher being set up
beside the load, whatever else runs before the first frame. Prints three
figures in milliseconds from the start, each the best of RUNS:
the first frame (the thread list's title on screen), the first thread row
(the newest threads), the inbox loaded and watched (the status bar says
neither "loading", "working" nor "starting watch"), then `/` and a query
typed a key at a time: the slowest key until the screen shows it, and the
search's count done after the last key, and `w` to the agents view. The
polling adds a few milliseconds to each.

Usage: screen.py AMAIL DIR [RUNS [LIMIT_SECONDS]]   (a figure never reached
within the limit, 300 s unless given, prints as nan)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time


# A server of its own (not the user's), started by the first session.
SOCKET = f"amail-bench-{os.getpid()}"


def tmux(*args, **kw):
    return subprocess.run(["tmux", "-L", SOCKET, *args], **kw)


def search(session, mail, query, limit):
    """Types `/` and `query` a key at a time into the loaded inbox: the
    slowest key's time until the screen shows it, and the time from the
    last key until the count is done (no "…" on the prompt line)."""
    def screen():
        return tmux("capture-pane", "-p", "-t", session,
                              capture_output=True, text=True).stdout
    tmux("send-keys", "-t", session, "/")
    time.sleep(0.3)
    slowest = 0.0
    for i in range(len(query)):
        tmux("send-keys", "-t", session, "-l", query[i])
        start = time.perf_counter()
        while f"/{query[:i + 1]}" not in screen() and time.perf_counter() - start < limit:
            time.sleep(0.001)
        slowest = max(slowest, (time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        prompt = [line for line in screen().splitlines() if "Enter keep" in line]
        if prompt and "…" not in prompt[0]:
            break
        time.sleep(0.002)
    counted = (time.perf_counter() - start) * 1000
    tmux("send-keys", "-t", session, "Escape")
    time.sleep(0.3)
    # The agents view, from its key to its rows.
    tmux("send-keys", "-t", session, "w")
    start = time.perf_counter()
    while "Agents ·" not in screen() and time.perf_counter() - start < limit:
        time.sleep(0.001)
    agents = (time.perf_counter() - start) * 1000
    return slowest, counted, agents


def once(amail, mail, limit):
    session = f"amail-bench-{os.getpid()}"
    home = tempfile.mkdtemp(prefix="amail-bench-home-")
    cmd = (f"AMAIL_HOME='{home}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color "
           f"'{amail}' inbox '{mail}' 2>/dev/null; sleep 600")
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    # A server that is still closing (the last run's session was its last)
    # refuses a new session for a moment: tried again.
    for _ in range(50):
        if tmux("new-session", "-d", "-s", session, "-x", "200", "-y", "40", "sh", "-c", cmd,
                env=env, stderr=subprocess.DEVNULL).returncode == 0:
            break
        time.sleep(0.1)
    else:
        raise SystemExit("tmux would not start a session")
    first = rows = full = None
    try:
        while time.perf_counter() - start < limit:
            screen = tmux("capture-pane", "-p", "-t", session,
                                    capture_output=True, text=True).stdout
            now = (time.perf_counter() - start) * 1000
            if first is None and "Threads" in screen:
                first = now
            if rows is None and "▶" in screen:
                rows = now
            # The status bar is the line that names the mailbox.
            status = [line for line in screen.splitlines() if mail in line]
            busy = any(word in line for line in status
                       for word in ("loading", "working", "starting watch"))
            if rows is not None and status and not busy:
                full = now
                break
            time.sleep(0.003)
        keys = search(session, mail, QUERY, limit) if full is not None else (None, None, None)
    finally:
        tmux("kill-session", "-t", session, stderr=subprocess.DEVNULL)
        shutil.rmtree(home, ignore_errors=True)
    return (first, rows, full) + keys


# A query typed into the loaded inbox, a key at a time: one that few
# threads hold, so the count is a pass over every message's text.
QUERY = "ol-981"


def main():
    amail, mail = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    limit = float(sys.argv[4]) if len(sys.argv) > 4 else 300
    results = [once(amail, mail, limit) for _ in range(runs)]
    best = [min((r[i] for r in results if r[i] is not None), default=float("nan"))
            for i in range(6)]
    print(" ".join(f"{b:.0f}" for b in best))


main()
