#!/usr/bin/env python3
"""minnowd's progress reports (MariaDB's progress packets), read off a raw socket, and as the
stock mariadb client prints them.

  minnowd_progress_test.py BUILD/tools/minnowd

A client that asks (CLIENT_PROGRESS, bit 29, or MARIADB_CLIENT_PROGRESS in MariaDB's extended
capabilities) gets, while a copy-ALTER, OPTIMIZE or CREATE INDEX runs, ERR packets with code
0xffff carrying stage, max_stage, progress (thousandths of a percent) and the stage's name: at
the first work of the stage, then every max(global, session progress_report_time) seconds, all
between the statement's command and its response. A client that does not ask, or a
progress_report_time of 0, gets none. Exits 1 listing the failed checks.
"""
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minnowd_test import FAILED, Minnowd, check, connect, recv_packet, send  # noqa: E402

CLIENT_LONG_PASSWORD = 1 << 0  # MariaDB's CLIENT_MYSQL: cleared by a client with extensions
CLIENT_PROTOCOL_41 = 1 << 9
CLIENT_SECURE_CONNECTION = 1 << 15
CLIENT_MULTI_STATEMENTS = 1 << 16
CLIENT_MULTI_RESULTS = 1 << 17
CLIENT_PLUGIN_AUTH = 1 << 19
CLIENT_PROGRESS_OBSOLETE = 1 << 29
MARIADB_CLIENT_PROGRESS_EXT = 1 << 0  # 1 << 32 of MariaDB's 64-bit capabilities
SERVER_MORE_RESULTS_EXIST = 1 << 3


def login(port, progress_bit=False, extended=False):
    """A raw connection as root; `progress_bit` sets CLIENT_PROGRESS (bit 29), `extended` clears
    CLIENT_MYSQL and sends MARIADB_CLIENT_PROGRESS in the extended capabilities."""
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    recv_packet(s)
    caps = (CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION |
            CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS | CLIENT_PLUGIN_AUTH)
    ext = 0
    if progress_bit:
        caps |= CLIENT_PROGRESS_OBSOLETE
    if extended:
        caps &= ~CLIENT_LONG_PASSWORD
        ext = MARIADB_CLIENT_PROGRESS_EXT
    resp = struct.pack("<IIB19xI", caps, 1 << 24, 45, ext) + b"root\0" + b"\0" + \
        b"mysql_native_password\0"
    send(s, resp, 1)
    _, ok = recv_packet(s)
    if ok is None or ok[0] != 0:
        raise RuntimeError(f"login failed: {ok!r}")
    return s


def run(s, sql):
    """Sends COM_QUERY `sql` and reads every response of it. Returns (events, seq_ok): events in
    arrival order, each ("progress", seconds since sent, stage, max_stage, progress, name),
    ("ok", status, info, seconds), ("err", code, message) or ("result", rows, status, seconds);
    seq_ok tells that
    the packets' sequence ids ran 1, 2, 3, ... without a gap."""
    send(s, b"\x03" + sql.encode())
    start, events, expect_seq, seq_ok = time.monotonic(), [], 1, True

    def packet():
        nonlocal expect_seq, seq_ok
        seq, p = recv_packet(s)
        if p is None:
            raise RuntimeError("connection closed")
        seq_ok = seq_ok and seq == expect_seq % 256
        expect_seq += 1
        return p

    while True:
        p = packet()
        if p[0] == 0xff and p[1:3] == b"\xff\xff":
            stage, max_stage = p[4], p[5]
            progress = p[6] | p[7] << 8 | p[8] << 16
            name = p[10:10 + p[9]].decode()
            events.append(("progress", time.monotonic() - start, stage, max_stage, progress, name))
            continue
        if p[0] == 0xff:
            events.append(("err", struct.unpack("<H", p[1:3])[0], p[9:].decode()))
            return events, seq_ok
        if p[0] == 0x00:
            at = 1
            for _ in range(2):  # affected rows, last insert id (lenenc, small here)
                at += 1 if p[at] < 251 else {0xfc: 3, 0xfd: 4, 0xfe: 9}[p[at]]
            status = struct.unpack("<H", p[at:at + 2])[0]
            info = p[at + 4 + 1:].decode() if len(p) > at + 4 else ""
            events.append(("ok", status, info, time.monotonic() - start))
        else:
            for _ in range(p[0]):
                packet()  # column definitions
            packet()  # EOF
            rows = 0
            while True:
                p = packet()
                if p[0] == 0xfe and len(p) < 9:
                    break
                rows += 1
            status = struct.unpack("<H", p[3:5])[0]
            events.append(("result", rows, status, time.monotonic() - start))
        if not status & SERVER_MORE_RESULTS_EXIST:
            return events, seq_ok


def progress_of(events):
    return [e for e in events if e[0] == "progress"]


def make_big_table(port):
    """A table whose copy-ALTER takes at least 4 s here (doubling its rows until it does);
    returns that ALTER's seconds."""
    c = connect(port, autocommit=True)
    cur = c.cursor()
    cur.execute("CREATE TABLE big (id int NOT NULL PRIMARY KEY AUTO_INCREMENT, v varchar(200),"
                " w int, KEY (w))")
    cur.execute("INSERT INTO big (v, w) VALUES (REPEAT('x', 150), 1)")
    rows, seconds = 1, 0.0
    while rows < 1 << 22:
        cur.execute("INSERT INTO big (v, w) SELECT v, w + id FROM big")
        rows *= 2
        if rows < 1 << 15:
            continue
        t0 = time.monotonic()
        cur.execute("ALTER TABLE big ENGINE=InnoDB")
        seconds = time.monotonic() - t0
        if seconds >= 4:
            break
    cur.execute("SELECT count(*) FROM big")
    print(f"     big: {cur.fetchone()[0]} rows, its copy-ALTER takes {seconds:.2f} s")
    c.close()
    return seconds


def set_global(port, seconds):
    c = connect(port, autocommit=True)
    c.cursor().execute(f"SET GLOBAL progress_report_time = {seconds}")
    c.close()


def test_variable(port):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    cur.execute("SELECT @@global.progress_report_time, @@session.progress_report_time")
    check("progress_report_time: MariaDB's default, 5", cur.fetchone() == (5, 5))
    cur.execute("SET SESSION progress_report_time = 0")
    cur.execute("SELECT @@progress_report_time")
    check("progress_report_time: SET SESSION 0", cur.fetchone() == (0,))
    cur.execute("SET progress_report_time = 9")
    cur.execute("SET progress_report_time = -1")
    cur.execute("SELECT @@progress_report_time")
    check("progress_report_time: -1 is clipped to 0", cur.fetchone() == (0,))
    cur.execute("SET GLOBAL progress_report_time = 7")
    cur.execute("SELECT @@global.progress_report_time, @@session.progress_report_time")
    check("progress_report_time: SET GLOBAL leaves the session's", cur.fetchone() == (7, 0))
    cur.execute("SET GLOBAL progress_report_time = DEFAULT")
    c.close()


def test_copy_alter(port, seconds):
    set_global(port, 1)
    s = login(port, progress_bit=True)
    events, seq_ok = run(s, "ALTER TABLE big ENGINE=InnoDB")
    reports = progress_of(events)
    check("copy-ALTER: packets numbered 1, 2, 3, ...", seq_ok)
    check("copy-ALTER: progress packets, then the OK last",
          len(reports) >= 1 and events[-1][0] == "ok" and
          all(e[0] == "progress" for e in events[:-1]), events)
    check("copy-ALTER: stage 1 of 2, 'copy to tmp table'",
          all(r[2:4] == (1, 2) and r[5] == "copy to tmp table" for r in reports), reports)
    values = [r[4] for r in reports]
    check("copy-ALTER: progress rises, at most 100000 (100%)",
          values == sorted(values) and all(0 <= v <= 100000 for v in values), values)
    times, elapsed = [r[1] for r in reports], events[-1][3]
    check("copy-ALTER: the first report at once, the next ones about 1 s apart",
          times and times[0] < 0.8 and all(b - a > 0.7 for a, b in zip(times, times[1:])) and
          len(reports) <= elapsed + 2 and (elapsed < 2 or len(reports) >= 2),
          (elapsed, times))
    # The session's value is used when larger than the global one.
    run(s, "SET SESSION progress_report_time = 60")
    events, _ = run(s, "ALTER TABLE big ENGINE=InnoDB")
    check("copy-ALTER: max(global 1, session 60): only the stage's first report",
          len(progress_of(events)) == 1 and events[-1][0] == "ok", events)
    run(s, "SET SESSION progress_report_time = 0")
    events, _ = run(s, "ALTER TABLE big ENGINE=InnoDB")
    check("copy-ALTER: session progress_report_time 0: none", events and
          len(events) == 1 and events[0][0] == "ok", events)
    s.close()
    set_global(port, 0)
    s = login(port, progress_bit=True)
    run(s, "SET SESSION progress_report_time = 1")
    events, _ = run(s, "ALTER TABLE big ENGINE=InnoDB")
    check("copy-ALTER: global progress_report_time 0: none", len(events) == 1 and
          events[0][0] == "ok", events)
    s.close()
    set_global(port, 1)


def test_clients_that_do_not_ask(port):
    s = login(port)
    run(s, "SET SESSION progress_report_time = 1")
    events, _ = run(s, "ALTER TABLE big ENGINE=InnoDB")
    check("a client without CLIENT_PROGRESS gets none", len(events) == 1 and
          events[0][0] == "ok", events)
    s.close()
    c = connect(port, autocommit=True)  # PyMySQL: it would fail on a 0xffff "error"
    c.cursor().execute("ALTER TABLE big ENGINE=InnoDB")
    check("PyMySQL's copy-ALTER succeeds (no progress packets)", True)
    c.close()


def test_extended_capability(port):
    s = login(port, extended=True)
    events, seq_ok = run(s, "ALTER TABLE big ENGINE=InnoDB")
    check("MARIADB_CLIENT_PROGRESS (extended capabilities) gets progress packets",
          seq_ok and len(progress_of(events)) >= 1 and events[-1][0] == "ok", events)
    s.close()


def test_create_index_and_optimize(port):
    s = login(port, progress_bit=True)
    events, seq_ok = run(s, "CREATE INDEX big_v ON big (v)")
    reports = progress_of(events)
    check("CREATE INDEX: stage 1 of 1, 'altering table', then the OK",
          seq_ok and reports and events[-1][0] == "ok" and
          all(r[2:4] == (1, 1) and r[5] == "altering table" for r in reports), events)
    run(s, "DROP INDEX big_v ON big")
    events, seq_ok = run(s, "OPTIMIZE TABLE big")
    reports = progress_of(events)
    check("OPTIMIZE: progress packets before its result set",
          seq_ok and len(reports) >= 1 and events[-1][0] == "result" and
          all(e[0] == "progress" for e in events[:-1]) and
          all(r[5] == "copy to tmp table" for r in reports), events)
    s.close()


def test_multi_statement(port):
    s = login(port, progress_bit=True)
    events, seq_ok = run(s, "SELECT 1; ALTER TABLE big ENGINE=InnoDB; SELECT 2")
    kinds = [e[0] for e in events]
    n = len(progress_of(events))
    check("multi-statement: the first result, the ALTER's reports, its OK, the last result",
          seq_ok and n >= 1 and kinds == ["result"] + ["progress"] * n + ["ok", "result"],
          kinds)
    s.close()


def test_mariadb_client(port):
    """The stock client asks for reports on a terminal (here a pty from script(1)) and prints
    each as "Stage: 1 of 2 'copy to tmp table'  43.2% of stage done"; in batch mode it does not
    ask, and prints none."""
    if shutil.which("script") is not None:
        r = subprocess.run(["script", "-qfec", f"mariadb -h127.0.0.1 -P{port} -uroot test",
                            "/dev/null"], input="ALTER TABLE big ENGINE=InnoDB;\nquit\n",
                           capture_output=True, text=True, timeout=120)
        check("mariadb on a terminal prints the stage",
              r.returncode == 0 and "Stage: 1 of 2 'copy to tmp table'" in r.stdout and
              "% of stage done" in r.stdout and "Query OK" in r.stdout,
              (r.returncode, r.stdout, r.stderr))
    r = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--batch", "-v",
                        "-e", "ALTER TABLE big ENGINE=InnoDB"],
                       capture_output=True, text=True, timeout=120)
    check("mariadb in batch mode prints none", r.returncode == 0 and "Stage:" not in r.stdout,
          (r.returncode, r.stdout, r.stderr))


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="minnowd_progress_test_")
    srv = Minnowd(binary, tmp)
    try:
        test_variable(srv.port)
        seconds = make_big_table(srv.port)
        test_copy_alter(srv.port, seconds)
        test_clients_that_do_not_ask(srv.port)
        test_extended_capability(srv.port)
        test_create_index_and_optimize(srv.port)
        test_multi_statement(srv.port)
        if shutil.which("mariadb") is not None:
            test_mariadb_client(srv.port)
    except Exception as e:  # noqa: BLE001
        check("no unexpected exception", False, repr(e))
    finally:
        rc = srv.stop()
        check("minnowd exits 0 on SIGTERM", rc == 0, rc)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{0 if FAILED else 1} passed, {1 if FAILED else 0} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
