#!/usr/bin/env python3
"""The minnow shell stays responsive while a session waits for a lock.

Runs the shell on a pseudo-terminal (libedit's prompt, as a user at a terminal has it). Session
'other' waits for a row lock that 'main' holds. Then:
  - a statement typed into 'other' while it waits is refused at once, and \\sessions still works;
  - half a line is typed and left without Enter: the waiting statement's 1205 (its lock wait
    times out after 6 s) is printed when it happens, not after the next Enter;
  - the half-typed line was kept: finishing it runs the whole statement.
Usage: shell_responsive.py PATH_TO_MINNOW
"""

import os
import pty
import select
import sys
import tempfile
import time


class Pty:
    def __init__(self, fd):
        self.fd = fd
        self.out = b""  # everything read so far
        self.pos = 0    # what expect() has consumed

    def expect(self, marker, timeout=15.0):
        """Waits for `marker` after what was consumed; returns the text up to and with it."""
        end = time.time() + timeout
        while True:
            i = self.out.find(marker, self.pos)
            if i >= 0:
                text = self.out[self.pos:i + len(marker)]
                self.pos = i + len(marker)
                return text
            left = end - time.time()
            if left <= 0:
                raise TimeoutError(f"no {marker!r} in {self.out[self.pos:]!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                raise EOFError(f"the shell ended; it printed {self.out[self.pos:]!r}")
            self.out += chunk

    def type(self, text):
        os.write(self.fd, text.encode("utf-8"))


def main():
    shell = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env["HOME"] = tmp
        env["TERM"] = "dumb"
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(shell, [shell, "--db", os.path.join(tmp, "t.db")], env)
        t = Pty(fd)
        try:
            t.expect(b"minnow> ")
            t.type("CREATE TABLE t (id INT PRIMARY KEY, v INT);\r")
            t.expect(b"minnow> ")
            t.type("INSERT INTO t VALUES (1, 0);\r")
            t.expect(b"minnow> ")
            t.type("BEGIN;\r")
            t.expect(b"minnow> ")
            t.type("UPDATE t SET v = 1 WHERE id = 1;\r")
            t.expect(b"minnow> ")
            t.type("\\connect other\r")
            t.expect(b"minnow [other]> ")
            t.type("SET innodb_lock_wait_timeout = 6;\r")
            t.expect(b"minnow [other]> ")
            t.type("UPDATE t SET v = 2 WHERE id = 1;\r")
            t.expect(b"session 'other' is waiting for a lock")
            t.expect(b"minnow [other]> ")

            start = time.time()
            t.type("SELECT 'not-run';\r")
            text = t.expect(b"minnow [other]> ", timeout=10)
            if b"is still running its last statement; this one was not run" not in text:
                failures.append(f"a statement for the waiting session was not refused: {text!r}")
            # Well before the 6 s lock wait ends (a shell that waited for it would take that).
            if time.time() - start > 2.5:
                failures.append("refusing the statement took longer than 2.5 s")
            t.type("\\sessions\r")
            text = t.expect(b"minnow [other]> ", timeout=10)
            if b"waiting" not in text:
                failures.append(f"\\sessions did not show the waiting session: {text!r}")

            # Half a line, no Enter: the 1205 must still appear when the wait times out.
            t.type("SELECT concat('typed', ")
            text = t.expect(b"Lock wait timeout exceeded", timeout=20)
            if b"session 'other' finished" not in text:
                failures.append(f"the timed-out statement was not reported: {text!r}")
            # The prompt is drawn again with the text typed so far, and Enter runs all of it.
            t.expect(b"minnow [other]> SELECT concat('typed', ", timeout=10)
            t.type("'-later') AS x;\r")
            text = t.expect(b"minnow [other]> ", timeout=5)
            if b"typed-later" not in text:
                failures.append(f"the half-typed line was lost: {text!r}")
            if b"not-run" in t.out.split(b"SELECT 'not-run';")[-1]:
                failures.append("the refused statement ran after all")

            t.type("\\session main\r")
            t.expect(b"minnow [main]> ")
            t.type("ROLLBACK;\r")
            t.expect(b"minnow [main]> ")
            t.type("\\q\r")
            t.expect(b"Bye")
        except (TimeoutError, EOFError) as e:
            failures.append(str(e))
        finally:
            for _ in range(50):  # the shell ends on \q; never leave it behind
                if os.waitpid(pid, os.WNOHANG) != (0, 0):
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("ok: a waiting session never blocks the prompt; its result appears when it happens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
