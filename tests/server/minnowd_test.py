#!/usr/bin/env python3
"""minnowd driven by real clients: Debian's mariadb client (batch mode), PyMySQL and raw sockets.

  minnowd_test.py BUILD/tools/minnowd

Starts minnowd on a free loopback port over a fresh database, runs every check, stops it with
SIGTERM (it must exit 0) and exits 1 listing the failed checks.
"""
import ctypes
import datetime
import decimal
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

try:
    import pymysql
except ImportError:  # Debian's python3-pymysql, when python3 is not Debian's
    sys.path.append("/usr/lib/python3/dist-packages")
    import pymysql

FAILED = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        FAILED.append(name)


class Minnowd:
    """minnowd on the database file TMP/t.minnow (made or reopened), on a free loopback port."""

    def __init__(self, binary, tmp, *args):
        self.db = os.path.join(tmp, "t.minnow")
        self.proc = subprocess.Popen(
            [binary, "--db", self.db, "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError("minnowd did not start: " + line + self.proc.stderr.read())
        self.port = int(line.rsplit(":", 1)[1])

    def alive(self):
        return self.proc.poll() is None

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


def connect(port, **kw):
    kw.setdefault("user", "root")
    return pymysql.connect(host="127.0.0.1", port=port, connect_timeout=10, **kw)


def mariadb(port, sql, *extra):
    return subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--batch", *extra,
                           "-e", sql], capture_output=True, text=True, timeout=60)


def test_mariadb_client(port):
    r = mariadb(port, "CREATE TABLE t (id int NOT NULL PRIMARY KEY, v varchar(20)) ENGINE=InnoDB;"
                      "INSERT INTO t VALUES (1,'a'),(2,'b'),(3,NULL);"
                      "SELECT id, v FROM t ORDER BY id;")
    check("mariadb: create, insert, select", r.returncode == 0 and
          r.stdout == "id\tv\n1\ta\n2\tb\n3\tNULL\n", r.stdout + r.stderr)
    r = mariadb(port, "SELECT * FROM missing")
    check("mariadb: 1146 with its SQLSTATE", r.returncode == 1 and
          "ERROR 1146 (42S02)" in r.stderr, r.stderr)
    r = mariadb(port, "SELECT @@version_comment LIMIT 1")
    check("mariadb: @@version_comment", r.returncode == 0 and "minnow" in r.stdout, r.stderr)
    r = mariadb(port, "SET NAMES utf8mb4; SET autocommit = 1; SHOW DATABASES; SHOW TABLES;"
                      "SELECT DATABASE(), USER()")
    check("mariadb: connect-time statements", r.returncode == 0 and
          "performance_schema\nsys\ntest\n" in r.stdout and "Tables_in_test\nt\n" in r.stdout and
          "test\troot@localhost" in r.stdout, r.stdout + r.stderr)
    r = mariadb(port, "status")
    check("mariadb: the status command", r.returncode == 0 and not r.stderr and
          "Current user:\t\troot@localhost" in r.stdout and "Uptime:" in r.stdout,
          r.stdout + r.stderr)
    r = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "-pwrong", "-e",
                        "SELECT 1"], capture_output=True, text=True, timeout=60)
    check("mariadb: a wrong password is 1045", "ERROR 1045 (28000)" in r.stderr, r.stderr)


def test_pymysql(port):
    c = connect(port, autocommit=False)
    cur = c.cursor()
    cur.execute("INSERT INTO t VALUES (4, 'd')")
    check("pymysql: affected rows", cur.rowcount == 1)
    check("pymysql: in-transaction status", c.server_status & 1 == 1, c.server_status)
    c.commit()
    check("pymysql: status after commit", c.server_status & 1 == 0, c.server_status)
    cur.execute("SELECT v FROM t WHERE id = %s", (4,))
    check("pymysql: select a committed row", cur.fetchall() == (("d",),))
    try:
        cur.execute("INSERT INTO t VALUES (4, 'dup')")
        check("pymysql: 1062", False, "no error")
    except pymysql.err.IntegrityError as e:
        check("pymysql: 1062", e.args[0] == 1062, e)
    c.rollback()
    cur.execute("SELECT CONNECTION_ID()")
    check("pymysql: connection id is the thread id", int(cur.fetchone()[0]) == c.thread_id())
    c.ping()
    c.select_db("test") if False else None
    # Users: CREATE USER, then log in with and without the password.
    cur.execute("CREATE USER 'app'@'localhost' IDENTIFIED BY 's3cret'")
    a = connect(port, user="app", password="s3cret")
    a.cursor().execute("SELECT 1")
    a.close()
    try:
        connect(port, user="app", password="nope")
        check("pymysql: wrong password refused", False, "connected")
    except pymysql.err.OperationalError as e:
        check("pymysql: wrong password refused", e.args[0] == 1045, e)
    cur.execute("ALTER USER 'app'@'localhost' IDENTIFIED BY 'other'")
    connect(port, user="app", password="other").close()
    check("pymysql: ALTER USER's password works", True)
    c.close()
    m = connect(port, client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
    mc = m.cursor()
    mc.execute("SELECT 1; SELECT 2, 3")
    first = mc.fetchall()
    mc.nextset()
    second = mc.fetchall()
    check("pymysql: multi-statements", first == ((1,),) or first == (("1",),), first)
    check("pymysql: second result", len(second) == 1 and len(second[0]) == 2, second)
    m.close()


def test_charsets(port):
    """Text comes as utf8mb4 (collation id 255), a BLOB as bytes (63), as MySQL 8.0 sends
    them; SET NAMES utf8mb3 turns 4-byte characters into '?'; other charsets are refused."""
    c = connect(port, charset="utf8mb4")
    cur = c.cursor()
    cur.execute("CREATE TABLE cs (id INT PRIMARY KEY, s VARCHAR(20), b BLOB)")
    cur.execute("INSERT INTO cs VALUES (1, %s, %s)", ("Jos\u00e9 \U0001F600", b"\xff\x00\xfe"))
    cur.execute("SELECT s, b FROM cs")
    row = cur.fetchone()
    check("charsets: text decoded as utf8mb4", row[0] == "Jos\u00e9 \U0001F600", row)
    check("charsets: a BLOB is bytes", row[1] == b"\xff\x00\xfe", row)
    fields = c._result.fields
    check("charsets: ids 255 and 63", [f.charsetnr for f in fields] == [255, 63],
          [f.charsetnr for f in fields])
    cur.execute("SET NAMES utf8mb3")
    cur.execute("SELECT s, @@character_set_results FROM cs")
    row = cur.fetchone()
    check("charsets: utf8mb3 results", row == ("Jos\u00e9 ?", "utf8mb3"), row)
    check("charsets: utf8mb3 id 33", c._result.fields[0].charsetnr == 33,
          c._result.fields[0].charsetnr)
    for bad, code in (("latin1", 1235), ("nosuch", 1115)):
        try:
            cur.execute("SET NAMES " + bad)
            check("charsets: SET NAMES " + bad + " refused", False, "accepted")
        except pymysql.err.MySQLError as e:
            check("charsets: SET NAMES " + bad + " refused", e.args[0] == code, e)
    cur.execute("DROP TABLE cs")
    c.close()
    u3 = connect(port, charset="utf8")
    cur = u3.cursor()
    cur.execute("SELECT @@character_set_client, @@character_set_results")
    check("charsets: a utf8mb3 handshake is SET NAMES utf8mb3", cur.fetchone() ==
          ("utf8mb3", "utf8mb3"))
    u3.close()


def recv_packet(s):
    head = b""
    while len(head) < 4:
        chunk = s.recv(4 - len(head))
        if not chunk:
            return None, None
        head += chunk
    n = head[0] | head[1] << 8 | head[2] << 16
    body = b""
    while len(body) < n:
        chunk = s.recv(n - len(body))
        if not chunk:
            return None, None
        body += chunk
    return head[3], body


def raw_login(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    seq, greeting = recv_packet(s)
    caps = (1 << 9) | (1 << 15) | (1 << 19)
    resp = struct.pack("<IIB23x", caps, 1 << 24, 45) + b"root\0" + b"\0" + \
        b"mysql_native_password\0"
    s.sendall(struct.pack("<I", len(resp))[:3] + bytes([1]) + resp)
    seq, ok = recv_packet(s)
    return s, ok


def send(s, payload, seq=0):
    s.sendall(struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload)


def test_raw(port, server):
    s, ok = raw_login(port)
    check("raw: login", ok is not None and ok[0] == 0, ok)
    send(s, b"")
    _, r = recv_packet(s)
    check("raw: an empty command is an error", r is not None and r[0] == 0xff, r)
    send(s, b"\x0c\x01")  # COM_PROCESS_KILL without its 4-byte id
    _, r = recv_packet(s)
    check("raw: a truncated COM_PROCESS_KILL is 1835",
          r is not None and r[0] == 0xff and struct.unpack("<H", r[1:3])[0] == 1835, r)
    send(s, b"\x63")  # no such command
    _, r = recv_packet(s)
    check("raw: an unknown command is 1047",
          r is not None and struct.unpack("<H", r[1:3])[0] == 1047, r)
    send(s, b"\x0e")
    _, r = recv_packet(s)
    check("raw: COM_PING after the errors", r is not None and r[0] == 0, r)
    send(s, b"\x09")
    _, r = recv_packet(s)
    check("raw: COM_STATISTICS", r is not None and r.startswith(b"Uptime: "), r)
    send(s, b"\x0e", seq=5)
    _, r = recv_packet(s)
    check("raw: a command with seq 5 is 1156",
          r is not None and struct.unpack("<H", r[1:3])[0] == 1156, r)
    s.close()
    # Truncated greeting replies and garbage.
    for junk in [b"", b"\x05\x00", b"\x03\x00\x00\x01abc", b"\xff" * 200]:
        t = socket.create_connection(("127.0.0.1", port), timeout=10)
        recv_packet(t)
        t.sendall(junk)
        if len(junk) >= 7:
            t.shutdown(socket.SHUT_WR)
            recv_packet(t)
        t.close()
    check("raw: garbage handshakes leave the server up", server.alive())
    # Oversize: 4 full chunks make 64 MiB, the fifth header passes max_allowed_packet.
    s, _ = raw_login(port)
    chunk = b"\x03" + b"x" * (0xffffff - 1)
    for i in range(4):
        s.sendall(b"\xff\xff\xff" + bytes([i]) + chunk)
        chunk = b"x" * 0xffffff
    s.sendall(b"\xff\xff\xff\x04")
    _, r = recv_packet(s)
    check("raw: a packet over max_allowed_packet is 1153",
          r is not None and struct.unpack("<H", r[1:3])[0] == 1153, r)
    s.close()
    check("raw: server up after the oversize packet", server.alive())


def read_result_packets(s):
    """Packets up to the EOF that ends a result set (no DEPRECATE_EOF: two EOFs)."""
    out, eofs = [], 0
    while eofs < 2:
        _, p = recv_packet(s)
        if p is None or p[0] == 0xff:
            return out, p
        if p[0] == 0xfe and len(p) < 9:
            eofs += 1
        else:
            out.append(p)
    return out, None


def lenenc_skip(p, at):
    """The offset after the string<lenenc> at `at` (lengths under 251 only)."""
    return at + 1 + p[at]


def column_type(coldef):
    """A column definition's MYSQL_TYPE_* (after catalog, schema, table, org_table, name,
    org_name, the 0x0c length, charset and column length)."""
    at = 0
    for _ in range(6):
        at = lenenc_skip(coldef, at)
    return coldef[at + 1 + 2 + 4]


def prepare(s, sql):
    """COM_STMT_PREPARE: (statement id, parameter count, column types), or the ERR packet."""
    send(s, b"\x16" + sql.encode())
    _, ok = recv_packet(s)
    if ok is None or ok[0] != 0:
        return ok
    stmt_id, ncols, nparams = struct.unpack("<IHH", ok[1:9])
    for _ in range(nparams + 1 if nparams else 0):
        recv_packet(s)
    types = [column_type(recv_packet(s)[1]) for _ in range(ncols)]
    if ncols:
        recv_packet(s)  # EOF
    return stmt_id, nparams, types


def query_one(s, sql):
    """COM_QUERY over a raw socket: the first row's values (text), or the ERR packet."""
    send(s, b"\x03" + sql.encode())
    _, count = recv_packet(s)
    if count is None or count[0] in (0x00, 0xff):
        return count
    packets, err = read_result_packets(s)
    if err is not None:
        return err
    row, at, values = packets[count[0]], 0, []
    while at < len(row):
        if row[at] == 0xfb:
            values.append(None)
            at += 1
        else:
            values.append(row[at + 1:at + 1 + row[at]].decode())
            at = lenenc_skip(row, at)
    return values


def test_prepared(port):
    """COM_STMT_PREPARE / EXECUTE over a raw socket: typed parameters bound safely,
    binary rows, CLOSE; the values read back through the text protocol."""
    s, _ = raw_login(port)
    send(s, b"\x16INSERT INTO t VALUES (?, ?)")
    _, ok = recv_packet(s)
    check("ps: prepare an INSERT", ok is not None and ok[0] == 0, ok)
    stmt_id, ncols, nparams = struct.unpack("<IHH", ok[1:9])
    check("ps: two parameters, no columns", (ncols, nparams) == (0, 2), (ncols, nparams))
    for _ in range(nparams + 1):  # parameter definitions and their EOF
        recv_packet(s)
    tricky = b"'); DROP t;-- \\\"\x00"  # fits varchar(20)
    body = struct.pack("<IBI", stmt_id, 0, 1) + b"\x00" + b"\x01" + \
        struct.pack("<HH", 8, 253) + struct.pack("<q", 77) + bytes([len(tricky)]) + tricky
    send(s, b"\x17" + body)
    _, r = recv_packet(s)
    check("ps: execute the INSERT", r is not None and r[0] == 0 and r[1] == 1, r)
    # Types remembered: execute again without rebinding them, the second value NULL.
    body = struct.pack("<IBI", stmt_id, 0, 1) + b"\x02" + b"\x00" + struct.pack("<q", 78)
    send(s, b"\x17" + body)
    _, r = recv_packet(s)
    check("ps: types remembered per statement", r is not None and r[0] == 0, r)
    send(s, b"\x19" + struct.pack("<I", stmt_id))  # CLOSE: no reply
    send(s, b"\x17" + struct.pack("<IBI", stmt_id, 0, 1))
    _, r = recv_packet(s)
    check("ps: a closed statement is 1243",
          r is not None and r[0] == 0xff and struct.unpack("<H", r[1:3])[0] == 1243, r)
    stmt_id, nparams, types = prepare(s, "SELECT id, v FROM t WHERE id >= ? ORDER BY id")
    check("ps: PREPARE tells a SELECT's columns and their declared types",
          (nparams, types) == (1, [0x08, 0xfd]), (nparams, types))
    body = struct.pack("<IBI", stmt_id, 0, 1) + b"\x00\x01" + struct.pack("<H", 8) + \
        struct.pack("<q", 77)
    send(s, b"\x17" + body)
    _, count = recv_packet(s)
    packets, err = read_result_packets(s)
    rows = packets[2:]  # after the two column definitions
    check("ps: execute a SELECT: two binary rows", err is None and count == b"\x02" and
          len(rows) == 2, (count, packets, err))
    if len(rows) == 2:
        # Row 1: header, bitmap (1 byte), id as LONGLONG, v as string<lenenc>.
        r1 = rows[0]
        check("ps: binary row values", r1[0] == 0 and struct.unpack("<q", r1[2:10])[0] == 77 and
              r1[11:] == tricky, r1)
        check("ps: a NULL in the bitmap", rows[1][1] & 0x08 != 0, rows[1])
    s.close()
    c = connect(port)
    cur = c.cursor()
    cur.execute("SELECT v FROM t WHERE id = 77")
    check("ps: the string went in byte for byte", cur.fetchone()[0].encode() == tricky)
    cur.execute("SELECT count(*) FROM t WHERE id = 78 AND v IS NULL")
    check("ps: the NULL went in", int(cur.fetchone()[0]) == 1)
    c.close()


def test_prepare_runs_nothing(port):
    """PREPARE describes a SELECT without running it: a FOR UPDATE on a row another
    transaction holds neither waits nor locks, autocommit=0 begins no transaction, Com_select
    does not move; EXECUTE then runs it. Bound DOUBLE and DECIMAL values keep their types."""
    a = connect(port, autocommit=False)
    a.cursor().execute("SELECT v FROM t WHERE id = 1 FOR UPDATE")
    s, _ = raw_login(port)
    query_one(s, "SET autocommit = 0")
    query_one(s, "SET innodb_lock_wait_timeout = 1")
    before = query_one(s, "SHOW SESSION STATUS LIKE 'Com_select'")
    r = prepare(s, "SELECT id, v FROM t WHERE id = ? FOR UPDATE")
    check("ps: PREPARE of a FOR UPDATE on a locked row describes it",
          isinstance(r, tuple) and r[1:] == (1, [0x08, 0xfd]), r)
    after = query_one(s, "SHOW SESSION STATUS LIKE 'Com_select'")
    check("ps: PREPARE counts no Com_select", before == after and before is not None and
          before[0] == "Com_select", (before, after))
    send(s, b"\x0e")
    _, ok = recv_packet(s)
    check("ps: PREPARE under autocommit=0 begins no transaction",
          ok is not None and ok[0] == 0 and struct.unpack("<H", ok[3:5])[0] & 1 == 0, ok)
    c = connect(port)
    cc = c.cursor()
    cc.execute("SELECT count(*) FROM information_schema.innodb_trx")
    check("ps: only the holder's transaction exists", int(cc.fetchone()[0]) == 1)
    if isinstance(r, tuple):
        body = struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" + struct.pack("<Hq", 8, 2)
        send(s, b"\x17" + body)
        _, count = recv_packet(s)
        packets, err = read_result_packets(s)
        check("ps: EXECUTE runs the FOR UPDATE (an unlocked row)",
              count == b"\x02" and err is None and len(packets) == 3, (count, packets, err))
        send(s, b"\x17" + struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" +
             struct.pack("<Hq", 8, 1))
        _, err = recv_packet(s)
        check("ps: EXECUTE on the locked row waits and times out (1205)",
              err is not None and err[0] == 0xff and struct.unpack("<H", err[1:3])[0] == 1205,
              err)
    query_one(s, "ROLLBACK")
    r = prepare(s, "SELECT id FROM t ORDER BY id LIMIT ?")
    check("ps: a SELECT with LIMIT ? is described", isinstance(r, tuple) and r[2] == [0x08], r)
    # SELECT ?, ?: a DOUBLE comes back a DOUBLE, a DECIMAL a NEWDECIMAL.
    r = prepare(s, "SELECT ?, ?")
    if isinstance(r, tuple):
        body = struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" + \
            struct.pack("<HHd", 5, 0xf6, 1.5) + b"\x042.50"
        send(s, b"\x17" + body)
        _, count = recv_packet(s)
        packets, err = read_result_packets(s)
        types = [column_type(p) for p in packets[:2]] if err is None else err
        check("ps: bound DOUBLE and DECIMAL keep their types", types == [0x05, 0xf6], types)
        if err is None and len(packets) == 3:
            row = packets[2]
            check("ps: their values", struct.unpack("<d", row[2:10])[0] == 1.5 and
                  row[10:] == b"\x042.50", row)
    s.close()
    a.rollback()
    a.close()
    # Result columns typed without rows: an empty result keeps its declared types; unsigned
    # values past 2^63 and NULL-first columns are numbers.
    cc.execute("CREATE TABLE u (id int NOT NULL PRIMARY KEY, big bigint unsigned, x int)")
    cc.execute("INSERT INTO u VALUES (1, 7, NULL), (2, 1, 5)")
    cc.execute("SELECT id, big, x FROM u WHERE id < 0")
    check("types: an empty result has its columns' declared types",
          [d[1] for d in cc.description] == [8, 8, 8], cc.description)
    cc.execute("SELECT big, x, 18446744073709551615 FROM u ORDER BY id")
    check("types: unsigned and NULL-first columns are numbers",
          cc.fetchall() == ((7, None, 18446744073709551615), (1, 5, 18446744073709551615)),
          cc.description)
    cc.execute("DROP TABLE u")
    c.close()


def execute(s, stmt_id, types, values):
    """COM_STMT_EXECUTE with new types: each value a (struct format, value), bytes for a
    string<lenenc>, None for NULL or ... for one sent as long data. The first reply packet and the packets up to
    the result set's end (empty for an OK or ERR)."""
    nulls = 0
    payload = b""
    for i, v in enumerate(values):
        if v is None:
            nulls |= 1 << i
        elif v is Ellipsis:  # sent as long data: nothing in the packet
            pass
        elif isinstance(v, bytes):
            payload += bytes([len(v)]) + v
        else:
            payload += struct.pack(v[0], v[1])
    body = struct.pack("<IBI", stmt_id, 0, 1) + nulls.to_bytes((len(values) + 7) // 8, "little")
    body += b"\x01" + b"".join(struct.pack("<H", t) for t in types) + payload
    send(s, b"\x17" + body)
    _, first = recv_packet(s)
    if first is None or first[0] in (0x00, 0xff):
        return first, []
    packets, err = read_result_packets(s)
    return first, packets if err is None else [err]


def errno_of(p):
    return struct.unpack("<H", p[1:3])[0] if p is not None and p[0] == 0xff else None


def test_prepared_parsed_once(port):
    """Prepared statements parsed once: a syntax error shows at PREPARE; placeholders in WHERE,
    IN lists, LIMIT, INSERT VALUES and UPDATE SET; NULL parameters; long data; a statement
    prepared before an ALTER TABLE sees the new column; a negative LIMIT is 1210."""
    s, _ = raw_login(port)
    r = prepare(s, "SELEC ?")
    check("ps1: a syntax error shows at PREPARE (1064)", errno_of(r) == 1064, r)
    r = prepare(s, "SELECT ? FROM ?")
    check("ps1: '?' where no value may stand is 1064", errno_of(r) == 1064, r)
    query_one(s, "CREATE TABLE pp (id int NOT NULL PRIMARY KEY, v varchar(20), n int)")
    ins = prepare(s, "INSERT INTO pp VALUES (?, ?, ? + 1)")
    check("ps1: INSERT VALUES with three placeholders", isinstance(ins, tuple) and ins[1] == 3,
          ins)
    for i in range(1, 6):
        ok, _ = execute(s, ins[0], [8, 253, 8], [("<q", i), b"v%d" % i, ("<q", i * 10)])
        check(f"ps1: insert row {i}", ok is not None and ok[0] == 0, ok)
    ok, _ = execute(s, ins[0], [8, 253, 6], [("<q", 6), None, None])
    check("ps1: NULL parameters insert NULLs", ok is not None and ok[0] == 0, ok)
    check("ps1: the rows went in", query_one(s, "SELECT count(*), sum(n) FROM pp WHERE v IS NOT "
          "NULL") == ["5", "155"], query_one(s, "SELECT count(*), sum(n) FROM pp"))
    check("ps1: the NULL row", query_one(s, "SELECT v, n FROM pp WHERE id = 6") == [None, None])

    sel = prepare(s, "SELECT id FROM pp WHERE id IN (?, ?, ?) ORDER BY id LIMIT ?")
    first, packets = execute(s, sel[0], [8, 8, 8, 8], [("<q", 5), ("<q", 2), ("<q", 3), ("<q", 2)])
    ids = [struct.unpack("<q", p[2:10])[0] for p in packets[1:]] if first == b"\x01" else packets
    check("ps1: IN list and LIMIT ? bound", ids == [2, 3], (first, packets))
    first, packets = execute(s, sel[0], [8, 8, 8, 8], [("<q", 5), ("<q", 2), ("<q", 3),
                                                       ("<q", -1)])
    check("ps1: LIMIT ? of -1 is 1210", errno_of(first) == 1210, first)
    nul = prepare(s, "SELECT count(*) FROM pp WHERE v <=> ? OR n = ?")
    first, packets = execute(s, nul[0], [253, 8], [None, None])
    check("ps1: NULL parameters in WHERE", first == b"\x01" and len(packets) == 2 and
          struct.unpack("<q", packets[1][2:10])[0] == 1, (first, packets))

    up = prepare(s, "UPDATE pp SET v = CONCAT(?, v), n = ? WHERE id BETWEEN ? AND ?")
    ok, _ = execute(s, up[0], [253, 8, 8, 8], [b"x", ("<q", 0), ("<q", 2), ("<q", 3)])
    check("ps1: UPDATE SET with placeholders", ok is not None and ok[0] == 0 and ok[1] == 2, ok)
    check("ps1: the UPDATE's values", query_one(s, "SELECT group_concat(v ORDER BY id), sum(n) "
          "FROM pp WHERE id IN (2, 3)") == ["xv2,xv3", "0"])

    # Long data: the second parameter sent in two pieces before EXECUTE.
    send(s, b"\x18" + struct.pack("<IH", ins[0], 1) + b"lo")
    send(s, b"\x18" + struct.pack("<IH", ins[0], 1) + b"ng")
    ok, _ = execute(s, ins[0], [8, 252, 8], [("<q", 7), ..., ("<q", 1)])
    check("ps1: long data is the parameter's value", ok is not None and ok[0] == 0 and
          query_one(s, "SELECT v FROM pp WHERE id = 7") == ["long"], ok)

    # Types never sent: 1210.
    fresh = prepare(s, "SELECT ?")
    send(s, b"\x17" + struct.pack("<IBI", fresh[0], 0, 1) + b"\x00" + b"\x00")
    _, err = recv_packet(s)
    check("ps1: an EXECUTE that never typed its parameters is 1210", errno_of(err) == 1210, err)

    # DDL after PREPARE: the next EXECUTE sees it (MySQL re-prepares).
    star = prepare(s, "SELECT * FROM pp WHERE id = ?")
    query_one(s, "ALTER TABLE pp ADD COLUMN w int DEFAULT 9")
    first, packets = execute(s, star[0], [8], [("<q", 1)])
    check("ps1: a statement prepared before ALTER TABLE returns the new column",
          first == b"\x04" and len(packets) == 5, (first, packets))
    query_one(s, "DROP TABLE pp")
    first, _ = execute(s, star[0], [8], [("<q", 1)])
    check("ps1: ... and 1146 once the table is dropped", errno_of(first) == 1146, first)
    s.close()


def column_fields(coldef):
    """A column definition's (type, flags, decimals, length)."""
    at = 0
    for _ in range(6):
        at = lenenc_skip(coldef, at)
    length, ctype, flags, decimals = struct.unpack("<IBHB", coldef[at + 3:at + 11])
    return ctype, flags, decimals, length


def decode_binary_row(row, types):
    """A binary-protocol row's values, decoded as the column types say."""
    n = len(types)
    bitmap, at, out = row[1:1 + (n + 9) // 8], 1 + (n + 9) // 8, []
    for i, t in enumerate(types):
        if bitmap[(i + 2) // 8] >> ((i + 2) % 8) & 1:
            out.append(None)
        elif t in (0x08, 0x05):
            out.append(struct.unpack("<q" if t == 0x08 else "<d", row[at:at + 8])[0])
            at += 8
        elif t == 0x0d:
            out.append(struct.unpack("<H", row[at:at + 2])[0])
            at += 2
        elif t == 0x0b:
            n_bytes = row[at]
            b = row[at + 1:at + 1 + n_bytes] + bytes(12 - n_bytes)
            neg, days, h, mi, se, us = struct.unpack("<BIBBBI", b)
            out.append(("-" if neg else "") + f"{days * 24 + h:02}:{mi:02}:{se:02}" +
                       (f".{us:06}" if us else "") if n_bytes else "zero")
            at += 1 + n_bytes
        elif t in (0x0a, 0x0c, 0x07):
            n_bytes = row[at]
            b = row[at + 1:at + 1 + n_bytes] + bytes(11 - n_bytes)
            y, mo, d, h, mi, se, us = struct.unpack("<HBBBBBI", b)
            out.append(datetime.date(y, mo, d) if t == 0x0a and n_bytes else
                       datetime.datetime(y, mo, d, h, mi, se, us) if n_bytes else "zero")
            at += 1 + n_bytes
        else:
            out.append(row[at + 1:at + 1 + row[at]].decode())
            at = lenenc_skip(row, at)
    return out


def test_temporal_types(port):
    """DATE, DATETIME(fsp), TIMESTAMP, YEAR and DECIMAL go with their own column types, flags,
    lengths and decimals; PyMySQL reads them as dates and Decimals (text protocol), and the
    binary protocol carries each in MySQL's encoding. Bound DATETIME, DATE, TIME and YEAR
    parameters are read back."""
    c = connect(port)
    cur = c.cursor()
    cur.execute("CREATE TABLE tt (id int NOT NULL PRIMARY KEY, d date, dt datetime(3), "
                "ts timestamp, y year, m decimal(7,2))")
    cur.execute("INSERT INTO tt VALUES (1, '2024-02-29', '2024-02-29 13:14:15.125', "
                "'2023-12-31 23:59:59', 2155, -12345.67), "
                "(2, '0000-00-00', '2024-03-01 00:00:00', NULL, 0, 0.5), "
                "(3, NULL, NULL, NULL, NULL, NULL)")
    c.commit()
    cur.execute("SELECT d, dt, ts, y, m, CAST('2020-01-02' AS DATE), NOW() FROM tt ORDER BY id")
    rows = cur.fetchall()
    check("types: text-protocol column types",
          [d[1] for d in cur.description] == [0x0a, 0x0c, 0x07, 0x0d, 0xf6, 0x0a, 0x0c],
          cur.description)
    check("types: PyMySQL decodes dates, years and decimals",
          rows[0][:6] == (datetime.date(2024, 2, 29),
                          datetime.datetime(2024, 2, 29, 13, 14, 15, 125000),
                          datetime.datetime(2023, 12, 31, 23, 59, 59), 2155,
                          decimal.Decimal("-12345.67"), datetime.date(2020, 1, 2)) and
          rows[2][:5] == (None,) * 5 and rows[1][3] == 0, rows)
    check("types: DATETIME(3)'s decimals and length", cur.description[1][3:6] == (23, 23, 3),
          cur.description[1])
    s, _ = raw_login(port)
    r = prepare(s, "SELECT id, d, dt, ts, y, m FROM tt WHERE id <= ? ORDER BY id")
    check("ps: PREPARE tells the temporal columns' types",
          isinstance(r, tuple) and r[2] == [0x08, 0x0a, 0x0c, 0x07, 0x0d, 0xf6], r)
    if isinstance(r, tuple):
        send(s, b"\x17" + struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" +
             struct.pack("<Hq", 8, 3))
        _, count = recv_packet(s)
        packets, err = read_result_packets(s)
        fields = [column_fields(p) for p in packets[:6]] if err is None else err
        check("ps: column flags, decimals and lengths",
              err is None and fields[1:] == [(0x0a, 128, 0, 10), (0x0c, 128, 3, 23),
                                             (0x07, 128, 0, 19), (0x0d, 32 | 64 | 128 | 32768,
                                                                  0, 4),
                                             (0xf6, 128 | 32768, 2, 9)], fields)
        types = [f[0] for f in fields] if err is None else []
        got = [decode_binary_row(p, types) for p in packets[6:]] if err is None else err
        check("ps: binary DATE, DATETIME, TIMESTAMP, YEAR and DECIMAL values",
              got == [[1, datetime.date(2024, 2, 29),
                       datetime.datetime(2024, 2, 29, 13, 14, 15, 125000),
                       datetime.datetime(2023, 12, 31, 23, 59, 59), 2155, "-12345.67"],
                      [2, "zero", datetime.datetime(2024, 3, 1), None, 0, "0.50"],
                      [3, None, None, None, None, None]], got)
        # Binary DATETIME (11 bytes), DATE (4), TIME (8) and YEAR (2 bytes) parameters.
        r = prepare(s, "SELECT CAST(? AS DATETIME(6)), ?, CAST(? AS CHAR), ? + 0")
        if isinstance(r, tuple):
            body = struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" + \
                struct.pack("<HHHH", 0x0c, 0x0a, 0x0b, 0x0d) + \
                b"\x0b" + struct.pack("<HBBBBBI", 2001, 2, 3, 4, 5, 6, 7) + \
                b"\x04" + struct.pack("<HBB", 1999, 12, 31) + \
                b"\x08" + struct.pack("<BIBBB", 1, 1, 2, 3, 4) + struct.pack("<H", 1987)
            send(s, b"\x17" + body)
            _, count = recv_packet(s)
            packets, err = read_result_packets(s)
            types = [column_fields(p)[0] for p in packets[:4]] if err is None else err
            got = decode_binary_row(packets[4], types) if err is None else err
            check("ps: bound DATETIME, DATE, TIME and YEAR parameters",
                  got == [datetime.datetime(2001, 2, 3, 4, 5, 6, 7), "1999-12-31",
                          "-26:03:04", 1987], (types, got))
    s.close()
    cur.execute("DROP TABLE tt")
    c.close()


def test_time_type(port):
    """TIME columns go as MYSQL_TYPE_TIME with TIME(fsp)'s decimals and length; PyMySQL reads
    them as timedeltas; the binary protocol sends MySQL's TIME struct (0, 8 or 12 bytes: sign,
    days, h, m, s, us), and a bound TIME parameter is stored into a TIME column."""
    c = connect(port)
    cur = c.cursor()
    cur.execute("CREATE TABLE tm (id int NOT NULL PRIMARY KEY, t time, t3 time(3))")
    cur.execute("INSERT INTO tm VALUES (1, '-838:59:59', '100:00:00.125'), "
                "(2, '00:00:00', '-00:00:01.5'), (3, NULL, '49:02:03')")
    c.commit()
    cur.execute("SELECT t, t3, CAST('10:11:12' AS TIME) FROM tm ORDER BY id")
    rows = cur.fetchall()
    check("time: text-protocol column types",
          [d[1] for d in cur.description] == [0x0b, 0x0b, 0x0b], cur.description)
    check("time: PyMySQL decodes timedeltas",
          rows == ((-datetime.timedelta(hours=838, minutes=59, seconds=59),
                    datetime.timedelta(hours=100, microseconds=125000),
                    datetime.timedelta(hours=10, minutes=11, seconds=12)),
                   (datetime.timedelta(0), -datetime.timedelta(seconds=1, microseconds=500000),
                    datetime.timedelta(hours=10, minutes=11, seconds=12)),
                   (None, datetime.timedelta(hours=49, minutes=2, seconds=3),
                    datetime.timedelta(hours=10, minutes=11, seconds=12))), rows)
    check("time: TIME(3)'s decimals and length", cur.description[1][3:6] == (14, 14, 3),
          cur.description[1])
    s, _ = raw_login(port)
    r = prepare(s, "SELECT id, t, t3 FROM tm WHERE id <= ? ORDER BY id")
    check("time ps: PREPARE tells TIME", isinstance(r, tuple) and r[2] == [0x08, 0x0b, 0x0b], r)
    if isinstance(r, tuple):
        send(s, b"\x17" + struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" +
             struct.pack("<Hq", 8, 3))
        _, count = recv_packet(s)
        packets, err = read_result_packets(s)
        fields = [column_fields(p) for p in packets[:3]] if err is None else err
        check("time ps: column flags, decimals and lengths",
              err is None and fields[1:] == [(0x0b, 128, 0, 10), (0x0b, 128, 3, 14)], fields)
        types = [f[0] for f in fields] if err is None else []
        got = [decode_binary_row(p, types) for p in packets[3:]] if err is None else err
        check("time ps: binary TIME values (12, 8 and 0 bytes)",
              got == [[1, "-838:59:59", "100:00:00.125000"], [2, "zero", "-00:00:01.500000"],
                      [3, None, "49:02:03"]], got)
        raw = packets[3] if err is None else b""
        check("time ps: -838:59:59 is 8 bytes: negative, 34 days, 22:59:59",
              raw[10:19] == b"\x08\x01" + struct.pack("<I", 34) + bytes([22, 59, 59]), raw)
        r = prepare(s, "INSERT INTO tm VALUES (?, ?, ?)")
        if isinstance(r, tuple):
            body = struct.pack("<IBI", r[0], 0, 1) + b"\x00\x01" + \
                struct.pack("<HHH", 0x08, 0x0b, 0x0b) + struct.pack("<q", 4) + \
                b"\x08" + struct.pack("<BIBBB", 1, 1, 2, 3, 4) + \
                b"\x0c" + struct.pack("<BIBBBI", 0, 0, 5, 6, 7, 890000)
            send(s, b"\x17" + body)
            _, ok = recv_packet(s)
            check("time ps: INSERT of bound TIME parameters", ok is not None and ok[0] == 0, ok)
    s.close()
    c.commit()  # a new read view, which sees the row the other connection inserted
    cur.execute("SELECT t, t3 FROM tm WHERE id = 4")
    got = cur.fetchall()
    check("time ps: the bound TIMEs stored",
          got == ((-datetime.timedelta(hours=26, minutes=3, seconds=4),
                   datetime.timedelta(hours=5, minutes=6, seconds=7, microseconds=890000)),),
          got)
    cur.execute("DROP TABLE tm")
    c.close()


def query_columns(s, sql):
    """COM_QUERY over a raw socket: each result column's (type, flags, decimals, length), or the
    ERR packet."""
    send(s, b"\x03" + sql.encode())
    _, count = recv_packet(s)
    if count is None or count[0] in (0x00, 0xff):
        return count
    packets, err = read_result_packets(s)
    return err if err is not None else [column_fields(p) for p in packets[:count[0]]]


def test_column_metadata(port):
    """A declared DATETIME(3) / TIMESTAMP(3) column tells decimals 3 with no rows as with
    some; ENUM and SET columns go as MYSQL_TYPE_STRING with ENUM_FLAG (256) / SET_FLAG (2048),
    as long as their longest value (4 bytes a character), as MySQL sends them."""
    c = connect(port, autocommit=True)
    cur = c.cursor()
    cur.execute("CREATE TABLE cm (id int NOT NULL PRIMARY KEY, dt datetime(3), "
                "ts timestamp(3) NULL, d0 datetime, e enum('a','bcd'), s set('x','yz','w'))")
    cur.execute("SELECT dt, ts, d0 FROM cm")
    check("metadata: PyMySQL sees DATETIME(3)'s and TIMESTAMP(3)'s 3 decimals with no rows",
          [d[5] for d in cur.description] == [3, 3, 0], cur.description)
    s, _ = raw_login(port)
    want = [(0x0c, 128, 3, 23), (0x07, 128, 3, 23), (0x0c, 128, 0, 19),
            (0xfe, 256, 0, 12), (0xfe, 2048, 0, 24)]
    got = query_columns(s, "SELECT dt, ts, d0, e, s FROM cm")
    check("metadata: no rows: fsp decimals, ENUM and SET flags", got == want, got)
    cur.execute("INSERT INTO cm VALUES (1, '2024-01-02 03:04:05.5', NULL, NULL, 'bcd', 'x,w')")
    got = query_columns(s, "SELECT dt, ts, d0, e, s FROM cm")
    check("metadata: with a row: the same", got == want, got)
    got = query_columns(s, "SELECT e, s, CONCAT(e) FROM cm WHERE id = 1")
    check("metadata: an expression over an ENUM is plain text",
          isinstance(got, list) and got[:2] == want[3:] and got[2][0] == 0xfd and
          got[2][1] & (256 | 2048) == 0, got)
    r = prepare(s, "SELECT dt, e, s FROM cm WHERE id = ?")
    check("metadata: PREPARE's columns: DATETIME, STRING, STRING",
          isinstance(r, tuple) and r[2] == [0x0c, 0xfe, 0xfe], r)
    s.close()
    cur.execute("DROP TABLE cm")
    c.close()


def start_waiter(conn, sql):
    """Runs `sql` on `conn` in a thread; returns (thread, result): result gets "ok" (seconds
    it took) and "row" (its first row, if any), or "error"."""
    result = {}

    def run():
        t0 = time.time()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            result["row"] = cur.fetchone()
            result["ok"] = time.time() - t0
        except Exception as e:  # noqa: BLE001
            result["error"] = e
    th = threading.Thread(target=run)
    th.start()
    return th, result


def await_lock_wait(cursor):
    """True once performance_schema.data_lock_waits shows a waiter (within 5 s)."""
    for _ in range(100):
        cursor.execute("SELECT count(*) FROM performance_schema.data_lock_waits")
        if int(cursor.fetchone()[0]) >= 1:
            return True
        time.sleep(0.05)
    return False


def test_disconnect_releases_locks(port):
    a = connect(port, autocommit=False)
    ac = a.cursor()
    ac.execute("UPDATE t SET v = 'locked' WHERE id = 1")
    b = connect(port, autocommit=False)
    bc = b.cursor()
    bc.execute("SET innodb_lock_wait_timeout = 20")
    th, result = start_waiter(b, "UPDATE t SET v = 'b' WHERE id = 1")
    obs = connect(port)
    oc = obs.cursor()
    await_lock_wait(oc)
    oc.execute("SELECT count(*) FROM information_schema.innodb_trx")
    check("disconnect: two transactions are seen over the wire", int(oc.fetchone()[0]) == 2)
    # The client vanishes mid-transaction, without COM_QUIT (shutdown: PyMySQL's reader still
    # holds the descriptor).
    a._sock.shutdown(socket.SHUT_RDWR)
    th.join(30)
    check("disconnect: the waiter gets the row once the holder is gone", "ok" in result and
          result["ok"] < 10, result)
    b.rollback()
    # A statement waiting for a lock whose client hangs up is cancelled.
    bc.execute("UPDATE t SET v = 'b' WHERE id = 2")
    c = connect(port, autocommit=False)
    c.cursor().execute("SET innodb_lock_wait_timeout = 60")
    csock = c._sock
    send_q = b"\x03UPDATE t SET v = 'c' WHERE id = 2"
    csock.sendall(struct.pack("<I", len(send_q))[:3] + b"\x00" + send_q)
    time.sleep(0.5)
    csock.shutdown(socket.SHUT_RDWR)
    gone = False
    for _ in range(50):
        oc.execute("SELECT count(*) FROM information_schema.innodb_trx")
        if int(oc.fetchone()[0]) == 1:
            gone = True
            break
        time.sleep(0.1)
    check("disconnect: a lock waiter whose client left is rolled back", gone)
    b.rollback()
    # KILL CONNECTION from another session.
    k = connect(port)
    kid = k.thread_id()
    oc.execute("SHOW PROCESSLIST")
    ids = [int(r[0]) for r in oc.fetchall()]
    check("processlist shows every connection", kid in ids and b.thread_id() in ids, ids)
    oc.execute(f"KILL {kid}")
    try:
        k.cursor().execute("SELECT 1")
        check("KILL ends the connection", False, "query ran")
    except pymysql.err.OperationalError:
        check("KILL ends the connection", True)
    try:
        oc.execute("KILL 999999")
        check("KILL of no such thread is 1094", False, "no error")
    except pymysql.err.InternalError as e:
        check("KILL of no such thread is 1094", e.args[0] == 1094, e)
    except pymysql.err.OperationalError as e:
        check("KILL of no such thread is 1094", e.args[0] == 1094, e)
    b.close()
    obs.close()


# A client process of its own: takes row 3's lock in an open transaction, says so, then waits.
LOCK_HOLDER = """
import sys, time
sys.path.append("/usr/lib/python3/dist-packages")
import pymysql
c = pymysql.connect(host="127.0.0.1", port=int(sys.argv[1]), user="root", autocommit=False)
c.cursor().execute("UPDATE t SET v = 'holder' WHERE id = 3")
print("locked", flush=True)
time.sleep(3600)
"""


def test_killed_client_releases_locks(port):
    """A client process killed (SIGKILL) while its transaction holds a row lock: the kernel
    closes its socket, minnowd ends the session, the transaction rolls back, and the
    connection waiting for the row gets it."""
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(port)],
                              stdout=subprocess.PIPE, text=True)
    locked = holder.stdout.readline().strip() == "locked"
    check("killed client: the holder process locked row 3", locked)
    b = connect(port, autocommit=False)
    b.cursor().execute("SET innodb_lock_wait_timeout = 30")
    th, result = start_waiter(b, "SELECT v FROM t WHERE id = 3 FOR UPDATE")
    obs = connect(port)
    oc = obs.cursor()
    waiting = await_lock_wait(oc)
    check("killed client: the other connection waits for row 3", waiting and "ok" not in result,
          result)
    holder.send_signal(signal.SIGKILL)
    holder.wait(10)
    th.join(40)
    check("killed client: the waiter gets row 3 after the holder process is killed",
          "ok" in result and result["ok"] < 20, result)
    check("killed client: the killed transaction's change was rolled back",
          "row" in result and result["row"][0] != "holder", result)
    b.rollback()
    b.close()
    obs.close()


class CClient:
    """One connection through Debian's libmariadb (ctypes): the C client's own
    mysql_reset_connection and mysql_change_user, which PyMySQL lacks."""
    lib = None

    def __init__(self, port, user="root", password=None):
        if CClient.lib is None:
            lib = ctypes.CDLL("libmariadb.so.3")
            lib.mysql_init.restype = ctypes.c_void_p
            lib.mysql_real_connect.restype = ctypes.c_void_p
            lib.mysql_real_connect.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                               ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_char_p, ctypes.c_uint,
                                               ctypes.c_char_p, ctypes.c_ulong]
            for name in ["mysql_query", "mysql_errno", "mysql_reset_connection"]:
                getattr(lib, name).restype = ctypes.c_int
            lib.mysql_query.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            lib.mysql_errno.argtypes = [ctypes.c_void_p]
            lib.mysql_reset_connection.argtypes = [ctypes.c_void_p]
            lib.mysql_change_user.restype = ctypes.c_char
            lib.mysql_change_user.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                              ctypes.c_char_p, ctypes.c_char_p]
            lib.mysql_store_result.restype = ctypes.c_void_p
            lib.mysql_store_result.argtypes = [ctypes.c_void_p]
            lib.mysql_fetch_row.restype = ctypes.POINTER(ctypes.c_char_p)
            lib.mysql_fetch_row.argtypes = [ctypes.c_void_p]
            lib.mysql_free_result.argtypes = [ctypes.c_void_p]
            lib.mysql_close.argtypes = [ctypes.c_void_p]
            CClient.lib = lib
        self.m = self.lib.mysql_init(None)
        if not self.lib.mysql_real_connect(self.m, b"127.0.0.1", user.encode(),
                                           password.encode() if password else None, b"test",
                                           port, None, 0):
            raise RuntimeError(f"libmariadb: connect failed ({self.errno()})")

    def errno(self):
        return self.lib.mysql_errno(self.m)

    def query(self, sql):
        """The first column of the first row (None without rows); raises on an error."""
        if self.lib.mysql_query(self.m, sql.encode()) != 0:
            raise RuntimeError(f"error {self.errno()} for {sql}")
        res = self.lib.mysql_store_result(self.m)
        if not res:
            return None
        row = self.lib.mysql_fetch_row(res)
        value = row[0].decode() if row and row[0] is not None else None
        self.lib.mysql_free_result(res)
        return value

    def close(self):
        self.lib.mysql_close(self.m)


def row_is_free(port, row):
    """True when another connection can lock `row` of t at once."""
    c = connect(port, autocommit=False)
    cur = c.cursor()
    cur.execute("SET innodb_lock_wait_timeout = 2")
    try:
        cur.execute(f"SELECT v FROM t WHERE id = {row} FOR UPDATE")
        return True
    except pymysql.err.MySQLError:
        return False
    finally:
        c.rollback()
        c.close()


def test_reset_connection(port):
    """COM_RESET_CONNECTION as MySQL: the transaction rolls back, its row locks and LOCK TABLES
    go, session variables return to the globals', the connection id stays."""
    a = CClient(port)
    cid = a.query("SELECT CONNECTION_ID()")
    default_timeout = a.query("SELECT @@innodb_lock_wait_timeout")
    a.query("SET SESSION innodb_lock_wait_timeout = 7")
    a.query("BEGIN")
    a.query("UPDATE t SET v = 'reset' WHERE id = 1")
    check("reset: before it, row 1 is locked", not row_is_free(port, 1))
    check("reset: mysql_reset_connection succeeds", a.lib.mysql_reset_connection(a.m) == 0,
          a.errno())
    check("reset: the connection id stays", a.query("SELECT CONNECTION_ID()") == cid)
    check("reset: session variables are the globals' again",
          a.query("SELECT @@innodb_lock_wait_timeout") == default_timeout)
    check("reset: the transaction rolled back and its lock is gone", row_is_free(port, 1))
    check("reset: the change is undone", a.query("SELECT v FROM t WHERE id = 1") != "reset")
    check("reset: no open transaction", a.query(
        "SELECT count(*) FROM information_schema.innodb_trx") == "0")
    a.query("LOCK TABLES t WRITE")
    check("reset: LOCK TABLES holds the table", not row_is_free(port, 1))
    check("reset: a second reset succeeds", a.lib.mysql_reset_connection(a.m) == 0, a.errno())
    check("reset: LOCK TABLES is released", row_is_free(port, 1))
    a.close()


def test_change_user(port):
    """COM_CHANGE_USER: the new account's password is checked, the old session ends (rollback,
    locks released), USER() is the new account; a wrong password is 1045 and ends the
    connection."""
    root = connect(port, autocommit=True)
    root.cursor().execute("CREATE USER 'cu'@'%' IDENTIFIED BY 'pw'")
    a = CClient(port)
    cid = a.query("SELECT CONNECTION_ID()")
    a.query("BEGIN")
    a.query("UPDATE t SET v = 'change' WHERE id = 2")
    ok = a.lib.mysql_change_user(a.m, b"cu", b"pw", b"test") == b"\0"
    check("change user: to cu with its password", ok, a.errno())
    check("change user: USER() is the new account",
          a.query("SELECT USER()") == "cu@localhost")
    check("change user: the connection id stays", a.query("SELECT CONNECTION_ID()") == cid)
    check("change user: the old transaction rolled back, its lock gone", row_is_free(port, 2))
    bad = a.lib.mysql_change_user(a.m, b"cu", b"wrong", None) != b"\0"
    check("change user: a wrong password is 1045", bad and a.errno() == 1045, a.errno())
    try:
        a.query("SELECT 1")
        check("change user: a failed change ends the connection", False, "query ran")
    except RuntimeError:
        check("change user: a failed change ends the connection", True)
    a.close()
    root.cursor().execute("DROP USER 'cu'@'%'")
    root.close()


def test_sysbench(port):
    """sysbench's OLTP statements through minnowd for a few seconds, as prepared statements
    (its default): no error may stop it. No DISTINCT ranges (the SQL front refuses SELECT
    DISTINCT with 1235)."""
    if shutil.which("sysbench") is None:
        check("sysbench installed (apt-get install sysbench)", False)
        return
    common = ["--mysql-host=127.0.0.1", f"--mysql-port={port}", "--mysql-user=root",
              "--mysql-db=test", "--tables=1", "--table-size=200"]
    r = subprocess.run(["sysbench", "oltp_read_write", *common, "prepare"], capture_output=True,
                       text=True, timeout=120)
    check("sysbench: prepare", r.returncode == 0, r.stdout + r.stderr)
    r = subprocess.run(["sysbench", "oltp_read_write", *common, "--distinct_ranges=0",
                        "--threads=2", "--time=3", "run"], capture_output=True, text=True,
                       timeout=120)
    txns = 0
    for line in r.stdout.splitlines():
        if line.strip().startswith("transactions:"):
            txns = int(line.split()[1])
    check("sysbench: oltp_read_write runs", r.returncode == 0 and txns > 0 and
          "FATAL" not in r.stdout + r.stderr, r.stdout[-2000:] + r.stderr[-2000:])


def test_deadlock(port):
    """Two connections each holding a row and wanting the other's: one gets 1213 (and is rolled
    back), the other proceeds."""
    a, b = connect(port, autocommit=False), connect(port, autocommit=False)
    a.cursor().execute("UPDATE t SET v = 'a' WHERE id = 1")
    b.cursor().execute("UPDATE t SET v = 'b' WHERE id = 2")
    outcome = {}

    def run(name, conn, row):
        try:
            conn.cursor().execute(f"UPDATE t SET v = '{name}' WHERE id = {row}")
            outcome[name] = 0
        except pymysql.err.MySQLError as e:
            outcome[name] = e.args[0]
    ta = threading.Thread(target=run, args=("a", a, 2))
    ta.start()
    time.sleep(0.5)  # a waits for b's row
    run("b", b, 1)
    ta.join(30)
    check("deadlock: exactly one victim with 1213, the other proceeds",
          sorted(outcome.values()) == [0, 1213], outcome)
    a.rollback()
    b.rollback()
    a.close()
    b.close()


def test_max_connections(binary, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    srv = Minnowd(binary, d, "--max-connections", "2", "--wait-timeout", "1")
    try:
        conns = [connect(srv.port), connect(srv.port)]
        try:
            connect(srv.port)
            check("max_connections: the third is 1040", False, "connected")
        except pymysql.err.OperationalError as e:
            check("max_connections: the third is 1040", e.args[0] == 1040, e)
        time.sleep(2.5)  # wait_timeout 1 s: both idle connections are closed
        try:
            conns[0].cursor().execute("SELECT 1")
            check("wait_timeout closes an idle connection", False, "query ran")
        except pymysql.err.OperationalError:
            check("wait_timeout closes an idle connection", True)
        connect(srv.port).close()
        check("a slot frees once idle connections are closed", True)
    finally:
        check("minnowd (second) exits 0 on SIGTERM", srv.stop() == 0)


def test_bad_flags(binary, tmp):
    """A number flag out of range or not a number is refused (exit 2), never wrapped."""
    for flag, value in [("--port", "70000"), ("--port", "80x"), ("--max-connections", "0"),
                        ("--wait-timeout", "4294967296")]:
        r = subprocess.run([binary, "--db", os.path.join(tmp, "flags.minnow"), flag, value],
                           capture_output=True, text=True, timeout=30)
        check(f"minnowd refuses {flag} {value}", r.returncode == 2 and "usage" in r.stderr,
              (r.returncode, r.stdout, r.stderr))


def main():
    binary = os.path.abspath(sys.argv[1])
    if shutil.which("mariadb") is None:
        print("mariadb client missing (apt-get install mariadb-client)")
        return 1
    tmp = tempfile.mkdtemp(prefix="minnowd_test_")
    srv = Minnowd(binary, tmp)
    try:
        test_mariadb_client(srv.port)
        test_pymysql(srv.port)
        test_charsets(srv.port)
        test_raw(srv.port, srv)
        test_prepared(srv.port)
        test_prepare_runs_nothing(srv.port)
        test_prepared_parsed_once(srv.port)
        test_temporal_types(srv.port)
        test_column_metadata(srv.port)
        test_time_type(srv.port)
        test_disconnect_releases_locks(srv.port)
        test_killed_client_releases_locks(srv.port)
        test_reset_connection(srv.port)
        test_change_user(srv.port)
        test_deadlock(srv.port)
        test_sysbench(srv.port)
        test_max_connections(binary, tmp)
        test_bad_flags(binary, tmp)
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
