#!/usr/bin/env python3
"""minnowd's accounts persist in the database file, as MySQL's mysql.user.

  minnowd_accounts_test.py BUILD/tools/minnowd

Over PyMySQL and Debian's mariadb client, on a free loopback port: CREATE USER, ALTER USER,
DROP USER and SET PASSWORD (with their 1396/1133 errors and the IF [NOT] EXISTS notes
3163/3162; each commits the open transaction first) survive a SIGTERM restart and a SIGKILL;
a wrong or old password is 1045 afterwards and a dropped account is gone;
a --users file's accounts override the stored ones in memory only; under --read-only the
stored accounts log in and every account change is 1290; no file holds a password.

Exits 1 listing the failed checks.
"""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

# The server harness of the client test beside this one (it makes Debian's python3-pymysql
# importable first): its Minnowd, connect() and check().
from minnowd_test import FAILED, Minnowd, check, connect, prepare, raw_login, recv_packet, send

import pymysql  # noqa: E402

PW1 = "Zq9-first-secret"
PW2 = "Zq9-second-secret"


def errno_of(fn):
    try:
        fn()
    except pymysql.MySQLError as e:
        return e.args[0], e.args[1] if len(e.args) > 1 else ""
    return None, ""


def login_errno(port, user, password):
    """None when `user` logs in with `password` (and USER() says so), else the error number."""
    def run():
        c = connect(port, user=user, password=password)
        cur = c.cursor()
        cur.execute("SELECT USER()")
        who = cur.fetchone()[0]
        c.close()
        if not who.startswith(user + "@"):
            raise RuntimeError(f"USER() is {who}")
    return errno_of(run)[0]


def mariadb_login(port, user, password):
    r = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", f"-u{user}", f"-p{password}",
                        "--batch", "--skip-column-names", "-e", "SELECT USER()"],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def run(cur, sql):
    """The statement's error (number, message), or (None, [SHOW WARNINGS rows])."""
    code, msg = errno_of(lambda: cur.execute(sql))
    if code is not None:
        return code, msg
    cur.execute("SHOW WARNINGS")
    return None, [(level, int(code), message) for level, code, message in cur.fetchall()]


def session_status(cur, *names):
    """The session status variables `names`, as ints."""
    out = []
    for name in names:
        cur.execute(f"SHOW SESSION STATUS LIKE '{name}'")
        out.append(int(cur.fetchone()[1]))
    return out


def statements(port):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    check("CREATE USER", run(cur, f"CREATE USER 'app'@'%' IDENTIFIED BY '{PW1}'") == (None, []))
    check("CREATE USER another", run(cur, "CREATE USER 'gone'@'localhost' IDENTIFIED BY 'x'")
          == (None, []))
    got = run(cur, "CREATE USER 'app'@'%' IDENTIFIED BY 'y'")
    check("CREATE USER of an existing account is 1396",
          got == (1396, "Operation CREATE USER failed for 'app'@'%'"), got)
    got = run(cur, "SHOW WARNINGS")
    check("SHOW WARNINGS after 1396 lists the error",
          got == (None, [("Error", 1396, "Operation CREATE USER failed for 'app'@'%'")]), got)
    got = run(cur, "CREATE USER IF NOT EXISTS 'app'@'%' IDENTIFIED BY 'y'")
    check("CREATE USER IF NOT EXISTS: note 3163",
          got == (None, [("Note", 3163, "Authorization ID 'app'@'%' already exists.")]), got)
    got = run(cur, "DROP USER IF EXISTS 'nobody'@'%'")
    check("DROP USER IF EXISTS: note 3162",
          got == (None, [("Note", 3162, "Authorization ID 'nobody'@'%' does not exist.")]), got)
    got = run(cur, "ALTER USER IF EXISTS 'nobody'@'%' IDENTIFIED BY 'z'")
    check("ALTER USER IF EXISTS: note 3162",
          got == (None, [("Note", 3162, "Authorization ID 'nobody'@'%' does not exist.")]), got)
    got = run(cur, "ALTER USER 'nobody'@'%' IDENTIFIED BY 'z'")
    check("ALTER USER of a missing account is 1396",
          got == (1396, "Operation ALTER USER failed for 'nobody'@'%'"), got)
    got = run(cur, "DROP USER 'nobody'")
    check("DROP USER of a missing account is 1396",
          got == (1396, "Operation DROP USER failed for 'nobody'@'%'"), got)
    # Several accounts: all or nothing, 1396 naming each account that failed.
    got = run(cur, "CREATE USER 'l1'@'%', 'app'@'%', 'l2'@'%', 'gone'@'localhost'")
    check("CREATE USER of a list with existing accounts is 1396 naming them",
          got == (1396, "Operation CREATE USER failed for 'app'@'%','gone'@'localhost'"), got)
    check("... and creates none of the list", login_errno(port, "l1", "") == 1045)
    got = run(cur, "CREATE USER IF NOT EXISTS 'l1'@'%', 'app'@'%'")
    check("CREATE USER IF NOT EXISTS of a list: the new made, a note for the old",
          got == (None, [("Note", 3163, "Authorization ID 'app'@'%' already exists.")]) and
          login_errno(port, "l1", "") is None, got)
    got = run(cur, "DROP USER 'l1'@'%', 'nobody'@'%'")
    check("DROP USER of a list with a missing account is 1396 and drops none",
          got == (1396, "Operation DROP USER failed for 'nobody'@'%'") and
          login_errno(port, "l1", "") is None, got)
    check("DROP USER of a list", run(cur, "DROP USER 'l1'@'%', 'nobody2'@'%'")[0] == 1396)
    check("DROP USER of a list drops all", run(cur, "DROP USER 'l1'@'%'") == (None, []) and
          login_errno(port, "l1", "") == 1045)
    got = run(cur, "SET PASSWORD FOR 'nobody'@'%' = 'z'")
    check("SET PASSWORD for a missing account is 1133",
          got == (1133, "Can't find any matching row in the user table"), got)
    cur.execute("CREATE USER 'setpw'@'%' IDENTIFIED BY 'a'")
    check("SET PASSWORD FOR", run(cur, "SET PASSWORD FOR 'setpw'@'%' = 'b'") == (None, []))
    s = connect(port, user="setpw", password="b", autocommit=True)
    check("SET PASSWORD (own account)",
          run(s.cursor(), "SET PASSWORD = 'own-pw'") == (None, []))
    s.close()
    # Prepared (COM_STMT_PREPARE / EXECUTE), as MySQL allows it.
    raw, _ = raw_login(port)
    prepared = prepare(raw, "CREATE USER 'ps'@'%' IDENTIFIED BY 'ps-pw'")
    ok = None
    if isinstance(prepared, tuple):
        send(raw, b"\x17" + struct.pack("<IBI", prepared[0], 0, 1))
        _, ok = recv_packet(raw)
    raw.close()
    check("a prepared CREATE USER runs", ok is not None and ok[0] == 0 and
          login_errno(port, "ps", "ps-pw") is None, (prepared, ok))
    # An account statement commits the open transaction first, as MySQL's implicit commit.
    cur.execute("CREATE TABLE t (id int PRIMARY KEY) ENGINE=InnoDB")
    cur.execute("SET autocommit = 0")
    cur.execute("INSERT INTO t VALUES (1)")
    counts = session_status(cur, "Com_commit", "Handler_commit")
    cur.execute("CREATE USER 'tx'@'%' IDENTIFIED BY 't'")
    after = session_status(cur, "Com_commit", "Handler_commit")
    cur.execute("ROLLBACK")
    cur.execute("SELECT count(*) FROM t")
    check("CREATE USER commits the open transaction", cur.fetchone()[0] == 1)
    # MySQL's implicit commit is no COMMIT statement: Com_commit stays, Handler_commit counts it.
    check("the implicit commit counts in Handler_commit, not Com_commit",
          after[0] == counts[0] and after[1] > counts[1], (counts, after))
    cur.execute("SET autocommit = 1")
    c.close()


def main():
    binary = os.path.abspath(sys.argv[1])
    if shutil.which("mariadb") is None:
        print("mariadb client missing (apt-get install mariadb-client)")
        return 1
    tmp = tempfile.mkdtemp(prefix="minnowd_accounts_test_")
    srv = None
    try:
        srv = Minnowd(binary, tmp)
        statements(srv.port)
        check("minnowd exits 0", srv.stop() == 0)

        srv = Minnowd(binary, tmp)
        check("after a restart the new account logs in (PyMySQL)",
              login_errno(srv.port, "app", PW1) is None)
        rc, out, err = mariadb_login(srv.port, "app", PW1)
        check("after a restart the new account logs in (mariadb)",
              rc == 0 and out.startswith("app@"), (rc, out, err))
        check("a wrong password is 1045", login_errno(srv.port, "app", "wrong") == 1045)
        rc, out, err = mariadb_login(srv.port, "app", "wrong")
        check("a wrong password is 1045 (mariadb)", "ERROR 1045 (28000)" in err, err)
        check("root@localhost is still there", login_errno(srv.port, "root", "") is None)
        check("SET PASSWORD's passwords survive a restart",
              login_errno(srv.port, "setpw", "own-pw") is None and
              login_errno(srv.port, "setpw", "b") == 1045)
        c = connect(srv.port, autocommit=True)
        cur = c.cursor()
        cur.execute(f"ALTER USER 'app'@'%' IDENTIFIED BY '{PW2}'")
        cur.execute("DROP USER 'gone'@'localhost'")
        c.close()
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait(timeout=30)
        srv = None

        srv = Minnowd(binary, tmp)  # recovers the killed server's file
        check("after SIGKILL the altered password logs in", login_errno(srv.port, "app", PW2)
              is None)
        check("after SIGKILL the old password is 1045",
              login_errno(srv.port, "app", PW1) == 1045)
        check("after SIGKILL the dropped account is gone (1045)",
              login_errno(srv.port, "gone", "x") == 1045)
        c = connect(srv.port, autocommit=True)
        got = run(c.cursor(), "CREATE USER 'gone'@'localhost' IDENTIFIED BY 'back'")
        check("a dropped account can be created again", got == (None, []), got)
        c.close()
        check("minnowd exits 0 after recovery", srv.stop() == 0)
        srv = None

        users = os.path.join(tmp, "users.txt")
        with open(users, "w") as f:
            f.write("app@% from-file\n")
        srv = Minnowd(binary, tmp, "--users", users)
        check("--users overrides a stored account",
              login_errno(srv.port, "app", "from-file") is None and
              login_errno(srv.port, "app", PW2) == 1045)
        check("minnowd --users exits 0", srv.stop() == 0)
        srv = Minnowd(binary, tmp)
        check("--users is not written to the file", login_errno(srv.port, "app", PW2) is None)
        check("minnowd exits 0 again", srv.stop() == 0)

        srv = Minnowd(binary, tmp, "--read-only")
        check("--read-only: a stored account logs in", login_errno(srv.port, "app", PW2) is None)
        c = connect(srv.port, autocommit=True)
        cur = c.cursor()
        for stmt in ("CREATE USER 'new'@'%' IDENTIFIED BY 'n'", "CREATE USER 'app'@'%'",
                     "ALTER USER 'app'@'%' IDENTIFIED BY 'n'", "DROP USER 'app'@'%'",
                     "DROP USER IF EXISTS 'nobody'@'%'", "SET PASSWORD FOR 'app'@'%' = 'n'"):
            got = run(cur, stmt)
            check(f"--read-only: {stmt} is 1290", got[0] == 1290, got)
        c.close()
        check("--read-only: the account is unchanged", login_errno(srv.port, "app", PW2) is None)
        check("minnowd --read-only exits 0", srv.stop() == 0)
        srv = None

        leaked = []
        for root, _, files in os.walk(tmp):
            for name in files:
                with open(os.path.join(root, name), "rb") as fh:
                    data = fh.read()
                if PW1.encode() in data or PW2.encode() in data:
                    leaked.append(name)
        check("no file holds a password", not leaked, leaked)
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
