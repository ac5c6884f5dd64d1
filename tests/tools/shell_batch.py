#!/usr/bin/env python3
"""The minnow shell's batch mode: --force, errors that name their session, and quit.

- A script stops at its first error (exit code 1); with --force it goes on and still exits 1.
- An error of a session that was left waiting names the session.
- `\\q` while another session waits for a row lock (50 s) or a metadata lock (a year) cancels
  the waits and leaves at once, rolling back.
Usage: shell_batch.py PATH_TO_MINNOW
"""

import os
import subprocess
import sys
import tempfile
import time


def run(minnow, db, script, *args, timeout=30):
    start = time.monotonic()
    p = subprocess.run([minnow, "--db", db, *args], input=script, capture_output=True,
                       text=True, timeout=timeout)
    return p, time.monotonic() - start


def check(cond, what, p):
    if not cond:
        print(f"FAILED: {what}\nexit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        sys.exit(1)


def main():
    minnow = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")
        setup = "CREATE TABLE t (i INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 10);\n"
        p, _ = run(minnow, db, setup)
        check(p.returncode == 0, "setup", p)

        script = ("INSERT INTO t VALUES (2, 20);\n"
                  "INSERT INTO t VALUES (1, 11);\n"
                  "INSERT INTO t VALUES (3, 30);\n"
                  "SELECT count(*) FROM t;\n")
        p, _ = run(minnow, db, script)
        check(p.returncode == 1, "an error ends a batch run with exit code 1", p)
        check("ERROR 1062 (23000) at line 2: Duplicate entry '1' for key 't.PRIMARY'" in p.stderr,
              "the error line names the line", p)
        check("count" not in p.stdout, "nothing runs after the error", p)

        p, _ = run(minnow, db, "DELETE FROM t WHERE i > 1;\n" + script, "--force")
        check(p.returncode == 1, "--force still exits 1 after an error", p)
        check("ERROR 1062 (23000) at line 3" in p.stderr, "--force prints the error", p)
        check(p.stdout.split() == ["count(*)", "3"], "--force runs the rest", p)

        p, _ = run(minnow, db, "SELECT nope FROM t;\nSELECT 1;\n", "-f")
        check(p.returncode == 1 and p.stdout.split() == ["1", "1"], "-f is --force", p)

        # A background session's error names it (the script ends while it waits: it finishes,
        # with 1205 after a second, and is printed).
        script = ("BEGIN;\nUPDATE t SET v = v + 1 WHERE i = 1;\n"
                  "\\connect other\nSET innodb_lock_wait_timeout = 1;\n"
                  "UPDATE t SET v = v + 2 WHERE i = 1;\n")
        p, _ = run(minnow, db, script)
        check(p.returncode == 1, "a background error sets the exit code", p)
        check("ERROR 1205 (HY000) at line 5 in session 'other': Lock wait timeout exceeded; "
              "try restarting transaction" in p.stderr, "the error names its session", p)

        # \q while a session waits: no waiting for the 50 s row-lock timeout or the year-long
        # metadata-lock one.
        for waiting in ("UPDATE t SET v = v + 2 WHERE i = 1;",
                        "ALTER TABLE t ADD COLUMN w INT;"):
            script = ("BEGIN;\nSELECT v FROM t WHERE i = 1 FOR UPDATE;\n"
                      f"\\connect other\n{waiting}\n\\q\n")
            p, took = run(minnow, db, script)
            check(p.returncode == 0, f"\\q during a wait ({waiting}) exits 0", p)
            check(took < 10, f"\\q during a wait ({waiting}) leaves at once (took {took:.1f} s)",
                  p)
        # ... and both transactions rolled back: the row is as it was, with no column w.
        p, _ = run(minnow, db, "SELECT * FROM t WHERE i = 1;\n")
        check(p.returncode == 0 and p.stdout.split() == ["i", "v", "1", "10"],
              "the quit sessions rolled back", p)
    print("shell batch: ok")


if __name__ == "__main__":
    main()
