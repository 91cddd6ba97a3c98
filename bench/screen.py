#!/usr/bin/env python3
"""The real `amail inbox` on a mailbox, as a person sees it: started in a
terminal (tmux, 200x40, a fresh AMAIL_HOME), its screen read back every
few milliseconds until the inbox is loaded and live.

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

The screen is read, and keys sent, through one tmux control-mode client
(`tmux -C`): a `tmux capture-pane` process started for every look (as
this script did before session 35) took CPU from the two cores the load
ran on: this script and its tmux clients used 218-261 ms of it in a run
of 577-630 ms, where one control client leaves it 58-66 ms (the tmux
server's share not counted either way). The same binary on 100,000
messages, watched both ways in turn: loaded at 528-562 ms that way, at
459-474 ms this way (a pty read by a script, no tmux and no looks:
419-428 ms in other minutes); docs/performance.md, "Session 35".

Usage: screen.py AMAIL DIR [RUNS [LIMIT_SECONDS]]   (a figure never reached
within the limit, 300 s unless given, prints as nan)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time


class TmuxError(Exception):
    pass


class Terminal:
    """A tmux server of its own (not the user's) running one command in a
    200x40 window, driven through one control-mode client: every look at
    the screen and every key is a command on that client's connection, not
    a process of its own."""

    def __init__(self, name, command):
        self.server = ["tmux", "-L", name]
        env = {k: v for k, v in os.environ.items() if k != "TMUX"}
        subprocess.run([*self.server, "new-session", "-d", "-s", "s", "-x", "200", "-y", "40",
                        "sh", "-c", command], env=env, check=True)
        # Until `no-output` below takes, the pane's output comes as
        # `%output` lines, raw bytes cut wherever the program's writes
        # were: a character split across two of them is not UTF-8 (it
        # stopped a run once, at a million messages). Those lines are
        # passed over, so they are read leniently.
        self.client = subprocess.Popen([*self.server, "-C", "attach", "-t", "s"], env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True, errors="replace", bufsize=1)
        # The pane's output is not wanted on the connection: only replies.
        # Asked again while tmux has not yet made the connection its client
        # ("no current client": seen once in a few dozen runs).
        for _ in range(50):
            try:
                self.command("refresh-client -f no-output")
                break
            except TmuxError:
                time.sleep(0.01)
        else:
            raise SystemExit("tmux's control client never attached")
        self.socket = self.command("display-message -p '#{socket_path}'")

    def command(self, line):
        """Runs one tmux command and returns its output. A reply is the
        lines between `%begin` and `%end` (or `%error`) whose flags say this
        client asked (1); the attach's own reply and notifications are
        passed over."""
        self.client.stdin.write(line + "\n")
        self.client.stdin.flush()
        reply = None
        while True:
            got = self.client.stdout.readline()
            if not got:
                raise SystemExit(f"tmux's control client closed during `{line}`")
            if got.startswith("%begin"):
                reply = [] if got.split()[-1] == "1" else None
            elif got.startswith(("%end", "%error")):
                if reply is not None:
                    if got.startswith("%error"):
                        raise TmuxError(f"tmux: `{line}`: {' '.join(reply)}")
                    return "\n".join(reply)
            elif reply is not None:
                reply.append(got.rstrip("\n"))

    def screen(self):
        return self.command("capture-pane -p -t s")

    def keys(self, keys, literal=False):
        """Sends keys (tmux key names, or text with literal=True)."""
        # Double quotes, with tmux's own escapes for what they would read.
        quoted = '"' + "".join("\\" + c if c in '"\\$' else c for c in keys) + '"'
        self.command(f"send-keys -t s {'-l ' if literal else ''}{quoted}")

    def close(self):
        subprocess.run([*self.server, "kill-server"], stderr=subprocess.DEVNULL)
        self.client.wait()
        # tmux leaves its socket behind when killed: one a run adds up.
        try:
            os.unlink(self.socket)
        except OSError:
            pass


def search(term, mail, query, limit):
    """Types `/` and `query` a key at a time into the loaded inbox: the
    slowest key's time until the screen shows it, and the time from the
    last key until the count is done (no "…" on the prompt line)."""
    term.keys("/")
    time.sleep(0.3)
    slowest = 0.0
    for i in range(len(query)):
        term.keys(query[i], literal=True)
        start = time.perf_counter()
        while f"/{query[:i + 1]}" not in term.screen() and time.perf_counter() - start < limit:
            time.sleep(0.001)
        slowest = max(slowest, (time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        prompt = [line for line in term.screen().splitlines() if "Enter keep" in line]
        if prompt and "…" not in prompt[0]:
            break
        time.sleep(0.002)
    counted = (time.perf_counter() - start) * 1000
    term.keys("Escape")
    time.sleep(0.3)
    # The agents view, from its key to its rows.
    term.keys("w")
    start = time.perf_counter()
    while "Agents ·" not in term.screen() and time.perf_counter() - start < limit:
        time.sleep(0.001)
    agents = (time.perf_counter() - start) * 1000
    return slowest, counted, agents


def once(amail, mail, limit, run):
    home = tempfile.mkdtemp(prefix="amail-bench-home-")
    cmd = (f"AMAIL_HOME='{home}' AMAIL_CONFIG=/nonexistent/config.toml TERM=xterm-256color "
           f"'{amail}' inbox '{mail}' 2>/dev/null; sleep 600")
    start = time.perf_counter()
    term = Terminal(f"amail-bench-{os.getpid()}-{run}", cmd)
    first = rows = full = None
    try:
        while time.perf_counter() - start < limit:
            screen = term.screen()
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
        keys = search(term, mail, QUERY, limit) if full is not None else (None, None, None)
    finally:
        term.close()
        shutil.rmtree(home, ignore_errors=True)
    return (first, rows, full) + keys


# A query typed into the loaded inbox, a key at a time: one that few
# threads hold, so the count is a pass over every message's text.
QUERY = "ol-981"


def main():
    amail, mail = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    limit = float(sys.argv[4]) if len(sys.argv) > 4 else 300
    results = [once(amail, mail, limit, run) for run in range(runs)]
    best = [min((r[i] for r in results if r[i] is not None), default=float("nan"))
            for i in range(6)]
    print(" ".join(f"{b:.0f}" for b in best))


main()
