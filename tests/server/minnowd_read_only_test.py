#!/usr/bin/env python3
"""minnowd --read-only: clients read, every write fails with 1290, and no file changes.

  minnowd_read_only_test.py BUILD/tools/minnowd

Makes a database through minnowd, stops it, restarts it with --read-only on a free loopback
port and checks over the wire (PyMySQL): SELECT returns the rows; INSERT, UPDATE, DELETE,
CREATE TABLE and DROP TABLE each fail with 1290; after SIGTERM every file of the database is
byte for byte what it was.
"""
import hashlib
import os
import shutil
import sys
import tempfile

# The server harness of the client test beside this one (it makes Debian's python3-pymysql
# importable first): its Minnowd, connect() and check().
from minnowd_test import FAILED, Minnowd, check, connect

import pymysql  # noqa: E402


def digests(tmp):
    """Every file under tmp, by relative path, with its SHA-256."""
    out = {}
    for root, _, files in os.walk(tmp):
        for f in files:
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, tmp)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="minnowd_read_only_test_")
    srv = None
    try:
        srv = Minnowd(binary, tmp)
        c = connect(srv.port, autocommit=True)
        cur = c.cursor()
        cur.execute("CREATE TABLE t (id int PRIMARY KEY, v varchar(10)) ENGINE=InnoDB")
        cur.execute("CREATE TABLE m (id int PRIMARY KEY) ENGINE=MyISAM")
        cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        cur.execute("INSERT INTO m VALUES (7)")
        c.close()
        check("minnowd exits 0 after making the database", srv.stop() == 0)
        srv = None
        before = digests(tmp)

        srv = Minnowd(binary, tmp, "--read-only")
        c = connect(srv.port, autocommit=True)
        cur = c.cursor()
        cur.execute("SELECT id, v FROM t ORDER BY id")
        check("SELECT reads the rows", cur.fetchall() == ((1, "a"), (2, "b")))
        cur.execute("SELECT id FROM m")
        check("SELECT reads a MyISAM table", cur.fetchall() == ((7,),))
        for stmt in ("INSERT INTO t VALUES (3, 'c')", "UPDATE t SET v = 'x' WHERE id = 1",
                     "DELETE FROM t WHERE id = 2", "INSERT INTO m VALUES (8)",
                     "CREATE TABLE u (id int PRIMARY KEY)", "DROP TABLE t"):
            code = None
            try:
                cur.execute(stmt)
            except pymysql.MySQLError as e:
                code = e.args[0]
            check(f"{stmt}: error 1290", code == 1290, code)
        cur.execute("SELECT count(*) FROM t")
        check("the table is as it was", cur.fetchall() == ((2,),))
        c.close()
        check("minnowd --read-only exits 0", srv.stop() == 0)
        srv = None
        after = digests(tmp)
        check("no file was created, removed or changed", before == after,
              sorted(set(before.items()) ^ set(after.items())))
    except Exception as e:  # noqa: BLE001
        check("no unexpected exception", False, repr(e))
    finally:
        if srv is not None:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{0 if FAILED else 1} passed, {1 if FAILED else 0} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
