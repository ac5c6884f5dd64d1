#!/usr/bin/env python3
"""minnowd killed with SIGKILL mid-load: every acknowledged commit survives, nothing else shows.

  minnowd_crash_test.py BUILD/tools/minnowd [BUILD/tools/minnow_check] [--rounds 3]

Starts minnowd on a fresh durable database (innodb_flush_log_at_trx_commit = 1, its default) on a
free loopback port, and runs writers over the wire (PyMySQL):
  - autocommit: single-row INSERTs; a row counts as acknowledged once its OK has arrived;
  - explicit: BEGIN, four INSERTs of one group, a transfer between two account rows (the
    balances' sum never changes), COMMIT; acknowledged once COMMIT's OK has arrived;
  - open: a transaction that inserts rows and updates an account, then waits and never commits.
While they write, the server is killed with SIGKILL, restarted on the same file (recovery at
open), and checked: every acknowledged row and group is there, every group is whole or absent
(never partly visible), the open transaction left nothing, and the balances still sum to the
start. Then the next round writes and kills again. At the end minnowd stops with SIGTERM and
minnow_check (when given) checks the file's integrity.

Exits 1 listing the failed checks.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# The server harness of the client test beside this one (it makes Debian's python3-pymysql
# importable first): its Minnowd (on TMP/t.minnow), connect() and check().
from minnowd_test import FAILED, Minnowd, check, pymysql
from minnowd_test import connect as connect_root

ACCOUNTS = 10  # transfers move money among accounts 1..ACCOUNTS
OPEN_ACCOUNT = ACCOUNTS + 1  # the open transaction's, so that it blocks no transfer
START_BALANCE = 1000
GROUP_ROWS = 4
ROUND_IDS = 10_000_000  # each round's ids start at round * ROUND_IDS


def connect(port, **kw):
    return connect_root(port, read_timeout=60, **kw)


class Ledger:
    """What the clients were told: acknowledged rows and groups (appended only after the OK)."""

    def __init__(self):
        self.latch = threading.Lock()
        self.auto_acked = set()
        self.groups_acked = set()
        self.open_ids = set()  # rows of transactions that never commit
        self.sent = set()  # every row id a writer sent in an INSERT

    def add(self, what, value):
        with self.latch:
            getattr(self, what).add(value)


def autocommit_writer(port, base, ledger, stop):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    i = 0
    try:
        while not stop.is_set():
            i += 1
            ledger.add("sent", base + i)
            cur.execute(f"INSERT INTO t VALUES ({base + i}, 0, 'auto')")
            ledger.add("auto_acked", base + i)
    except pymysql.err.MySQLError:
        pass  # the server was killed


def explicit_writer(port, base, ledger, stop):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    g = 0
    try:
        while not stop.is_set():
            g += 1
            grp = base + g
            a, b = g % ACCOUNTS + 1, (g * 7 + 3) % ACCOUNTS + 1
            cur.execute("BEGIN")
            for k in range(GROUP_ROWS):
                ledger.add("sent", grp * 10 + k)
                cur.execute(f"INSERT INTO t VALUES ({grp * 10 + k}, {grp}, 'grp')")
            cur.execute(f"UPDATE acct SET bal = bal - 3 WHERE id = {a}")
            cur.execute(f"UPDATE acct SET bal = bal + 3 WHERE id = {b}")
            cur.execute("COMMIT")
            ledger.add("groups_acked", grp)
    except pymysql.err.MySQLError:
        pass


def open_transaction(port, base, ledger, started):
    """Inserts rows and takes money from an account in a transaction that never commits."""
    c = connect(port, autocommit=False)
    cur = c.cursor()
    try:
        for k in range(GROUP_ROWS):
            cur.execute(f"INSERT INTO t VALUES ({base + k}, -1, 'open')")
            ledger.add("open_ids", base + k)
        cur.execute(f"UPDATE acct SET bal = bal - 500 WHERE id = {OPEN_ACCOUNT}")
        started.set()
        while True:  # the server dies under it
            time.sleep(0.1)
            c.ping(reconnect=False)
    except pymysql.err.MySQLError:
        pass
    except (OSError, ValueError):
        pass


def load_and_kill(srv, rnd, ledger):
    stop = threading.Event()
    started = threading.Event()
    base = rnd * ROUND_IDS
    threads = [
        threading.Thread(target=open_transaction, args=(srv.port, base + 1, ledger, started)),
        threading.Thread(target=autocommit_writer,
                         args=(srv.port, base + 100, ledger, stop)),
        threading.Thread(target=autocommit_writer,
                         args=(srv.port, base + ROUND_IDS // 2, ledger, stop)),
        # group ids base/10 + ..., rows grp * 10 + k: inside this round's id range
        threading.Thread(target=explicit_writer,
                         args=(srv.port, base // 10 + 100_000, ledger, stop)),
    ]
    for t in threads:
        t.start()
    started.wait(30)
    before = (len(ledger.auto_acked), len(ledger.groups_acked))
    deadline = time.time() + 60
    enough = False
    while not enough and time.time() < deadline:  # some of each kind acknowledged this round
        with ledger.latch:
            enough = (len(ledger.auto_acked) - before[0] >= 50 and
                      len(ledger.groups_acked) - before[1] >= 10)
        time.sleep(0.02)
    check(f"round {rnd}: autocommit rows and transactions were acknowledged before the kill",
          enough, (len(ledger.auto_acked) - before[0], len(ledger.groups_acked) - before[1]))
    srv.kill9()  # mid-load: the writers have statements in flight
    stop.set()
    for t in threads:
        t.join(60)
    check(f"round {rnd}: the writers stopped once the server was gone",
          not any(t.is_alive() for t in threads))


def verify(port, rnd, ledger):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    cur.execute("SELECT id, grp FROM t")
    rows = cur.fetchall()
    ids = {r[0] for r in rows}
    groups = {}
    for _, grp in rows:
        if grp > 0:
            groups[grp] = groups.get(grp, 0) + 1
    with ledger.latch:
        lost_auto = sorted(ledger.auto_acked - ids)
        lost_groups = sorted(g for g in ledger.groups_acked if groups.get(g) != GROUP_ROWS)
        leaked_open = sorted(ledger.open_ids & ids)
        n_auto, n_groups = len(ledger.auto_acked), len(ledger.groups_acked)
    partial = sorted(g for g, n in groups.items() if n != GROUP_ROWS)
    check(f"round {rnd}: all {n_auto} acknowledged autocommit rows survived", not lost_auto,
          lost_auto[:10])
    check(f"round {rnd}: all {n_groups} acknowledged transactions survived whole",
          not lost_groups, lost_groups[:10])
    check(f"round {rnd}: no transaction is partly visible", not partial,
          [(g, groups[g]) for g in partial[:10]])
    check(f"round {rnd}: the uncommitted transaction left no row", not leaked_open, leaked_open)
    with ledger.latch:
        unknown = sorted(ids - ledger.sent)
    check(f"round {rnd}: every row is one a client sent", not unknown, unknown[:10])
    cur.execute("SELECT count(*), sum(bal) FROM acct")
    n, total = cur.fetchone()
    check(f"round {rnd}: balances sum to the start (no partial transfer, no open update)",
          int(n) == OPEN_ACCOUNT and int(total) == OPEN_ACCOUNT * START_BALANCE, (n, total))
    c.close()


def main():
    args = sys.argv[1:]
    rounds = 3
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    binary = os.path.abspath(args[0])
    checker = os.path.abspath(args[1]) if len(args) > 1 else None
    tmp = tempfile.mkdtemp(prefix="minnowd_crash_test_")
    ledger = Ledger()
    srv = None
    try:
        srv = Minnowd(binary, tmp)
        c = connect(srv.port, autocommit=True)
        cur = c.cursor()
        cur.execute("CREATE TABLE t (id bigint NOT NULL PRIMARY KEY, grp bigint NOT NULL, "
                    "v varchar(20)) ENGINE=InnoDB")
        cur.execute("CREATE TABLE acct (id int NOT NULL PRIMARY KEY, bal int NOT NULL) "
                    "ENGINE=InnoDB")
        cur.execute("INSERT INTO acct VALUES " + ",".join(
            f"({i}, {START_BALANCE})" for i in range(1, OPEN_ACCOUNT + 1)))
        c.close()
        for rnd in range(1, rounds + 1):
            load_and_kill(srv, rnd, ledger)
            srv = Minnowd(binary, tmp)  # recovery at open
            check(f"round {rnd}: minnowd restarts on the killed database", True)
            verify(srv.port, rnd, ledger)
        rc = srv.stop()
        srv = None
        check("minnowd exits 0 on SIGTERM after the last recovery", rc == 0, rc)
        if checker:
            r = subprocess.run([checker, os.path.join(tmp, "t.minnow")], capture_output=True, text=True, timeout=300)
            check("minnow_check: the recovered file is intact", r.returncode == 0,
                  r.stdout[-1000:] + r.stderr[-1000:])
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
