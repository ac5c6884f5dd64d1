#!/usr/bin/env python3
"""The minnow shell's --read-only: an existing database opened for reading only.

- A database is made, closed and its files made read-only (chmod 444); --read-only SELECTs its
  rows, and every write (INSERT, UPDATE, DELETE, CREATE TABLE, DROP TABLE, on an InnoDB and a
  MyISAM table) fails with MySQL's 1290; the files are byte for byte as before.
- --read-only on a missing file fails and creates nothing.
- A file on a read-only mount: opened without --read-only, the error says to use --read-only;
  with it, it reads. This part needs a tmpfs mount (root with CAP_SYS_ADMIN); it is skipped
  otherwise. (Root ignores file modes, so chmod alone cannot make the OS refuse a write open.)
Usage: shell_read_only.py PATH_TO_MINNOW
"""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile

ER_1290 = ("ERROR 1290 (HY000) at line 1: The MySQL server is running with the --read-only "
           "option so it cannot execute this statement")


def run(minnow, db, script, *args, timeout=60):
    return subprocess.run([minnow, "--db", db, *args], input=script, capture_output=True,
                          text=True, timeout=timeout)


def check(cond, what, p=None):
    if not cond:
        print(f"FAILED: {what}")
        if p is not None:
            print(f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        sys.exit(1)


def snapshot(root):
    """Every file under root: its sha256 and mtime."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            path = os.path.join(d, f)
            with open(path, "rb") as fh:
                out[path] = (hashlib.sha256(fh.read()).hexdigest(), os.stat(path).st_mtime_ns)
    return out


def chmod_tree(root, file_mode, dir_mode):
    for d, dirs, files in os.walk(root):
        for f in files:
            os.chmod(os.path.join(d, f), file_mode)
        for sub in dirs:
            os.chmod(os.path.join(d, sub), dir_mode)


SETUP = """CREATE TABLE t (i INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
CREATE TABLE m (i INT PRIMARY KEY, v INT) ENGINE=MyISAM;
INSERT INTO m VALUES (1, 10), (2, 20);
"""

WRITES = [
    "INSERT INTO t VALUES (4, 'four');",
    "UPDATE t SET v = 'uno' WHERE i = 1;",
    "DELETE FROM t WHERE i = 2;",
    "INSERT INTO m VALUES (3, 30);",
    "UPDATE m SET v = 0;",
    "DELETE FROM m;",
    "CREATE TABLE u (i INT PRIMARY KEY);",
    "DROP TABLE t;",
]


def check_reads(minnow, db, what):
    p = run(minnow, db, "SELECT i, v FROM t ORDER BY i;\nSELECT sum(v) FROM m;\n", "--read-only")
    check(p.returncode == 0, f"{what}: --read-only SELECTs", p)
    check(p.stdout.split() == ["i", "v", "1", "one", "2", "two", "3", "three", "sum(v)", "30"],
          f"{what}: the rows", p)


def read_only_mount_part(minnow, tmp):
    mnt = os.path.join(tmp, "ro_mount")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "none", mnt],
                      capture_output=True).returncode != 0:
        print("skipped: the read-only mount part (cannot mount a tmpfs here)")
        return
    try:
        db = os.path.join(mnt, "t.db")
        p = run(minnow, db, SETUP)
        check(p.returncode == 0, "setup on the tmpfs", p)
        if subprocess.run(["mount", "-o", "remount,ro", mnt], capture_output=True).returncode:
            print("skipped: the read-only mount part (cannot remount read-only)")
            return
        p = run(minnow, db, "SELECT 1;\n")
        check(p.returncode == 1, "a read-only mount without --read-only fails", p)
        check("--read-only" in p.stderr and "Read-only file system" in p.stderr,
              "the error says to use --read-only", p)
        check_reads(minnow, db, "read-only mount")
        p = run(minnow, db, WRITES[0] + "\n", "--read-only")
        check(p.returncode == 1 and ER_1290 in p.stderr, "a write on the mount fails with 1290", p)
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


def main():
    minnow = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")
        p = run(minnow, db, SETUP)
        check(p.returncode == 0, "setup", p)
        chmod_tree(tmp, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH, 0o555)
        before = snapshot(tmp)

        check_reads(minnow, db, "chmod 444")
        for w in WRITES:
            p = run(minnow, db, w + "\nSELECT 'not reached';\n", "--read-only")
            check(p.returncode == 1, f"{w} fails", p)
            check(ER_1290 in p.stderr, f"{w} fails with 1290", p)
            check("not reached" not in p.stdout, "the script stops at the error", p)
        p = run(minnow, db, "\n".join(WRITES) + "\nSELECT count(*) FROM t;\n", "--read-only",
                "--force")
        check(p.stderr.count("The MySQL server is running with the --read-only option") ==
              len(WRITES), "--force: every write fails", p)
        check(p.stdout.split() == ["count(*)", "3"], "--force: nothing changed", p)
        # A transaction that only reads commits.
        p = run(minnow, db, "BEGIN;\nSELECT count(*) FROM t;\nCOMMIT;\n", "--read-only")
        check(p.returncode == 0 and p.stdout.split() == ["count(*)", "3"], "read-only commit", p)
        check(snapshot(tmp) == before, "no file was created or written")
        chmod_tree(tmp, 0o644, 0o755)

        missing = os.path.join(tmp, "missing.db")
        p = run(minnow, missing, "SELECT 1;\n", "--read-only")
        check(p.returncode == 1 and "does not exist" in p.stderr, "a missing file fails", p)
        check(not any(f.startswith("missing.db") for f in os.listdir(tmp)), "nothing created", p)

        read_only_mount_part(minnow, tmp)
        shutil.rmtree(os.path.join(tmp, "ro_mount"), ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
