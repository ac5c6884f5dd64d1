#!/usr/bin/env python3
"""minnowd's current database: the handshake's database (`mariadb -D db`, PyMySQL's database=),
COM_INIT_DB (PyMySQL's select_db), 1049 for an unknown one, SHOW PROCESSLIST's db, and
COM_RESET_CONNECTION keeping it.

  minnowd_databases_test.py BUILD/tools/minnowd

Exits 1 listing the failed checks.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minnowd_test import FAILED, CClient, Minnowd, check, connect, mariadb  # noqa: E402

import pymysql  # noqa: E402  (minnowd_test made it importable)


def test_handshake_database(port):
    r = mariadb(port, "CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY);"
                      "INSERT INTO shop.t VALUES (1), (2);")
    check("create a database and a table in it", r.returncode == 0, r.stderr)
    r = mariadb(port, "SELECT DATABASE(); SELECT count(*) FROM t;", "-D", "shop")
    check("mariadb -D shop: the current database", r.returncode == 0 and
          r.stdout == "DATABASE()\nshop\ncount(*)\n2\n", r.stdout + r.stderr)
    r = mariadb(port, "SELECT 1", "-D", "nowhere")
    check("mariadb -D nowhere: 1049", r.returncode != 0 and "1049" in r.stderr and
          "Unknown database 'nowhere'" in r.stderr, r.stdout + r.stderr)
    try:
        connect(port, database="nowhere").close()
        check("handshake database=nowhere: 1049", False, "connected")
    except pymysql.err.OperationalError as e:
        check("handshake database=nowhere: 1049", e.args[0] == 1049, e)
    c = connect(port, database="shop")
    cur = c.cursor()
    cur.execute("SELECT DATABASE()")
    check("handshake database=shop", cur.fetchone()[0] == "shop")
    c.close()


def test_init_db(port):
    c = connect(port, autocommit=True)
    cur = c.cursor()
    cur.execute("SELECT DATABASE()")
    check("a connection starts in test", cur.fetchone()[0] == "test")
    c.select_db("shop")  # COM_INIT_DB
    cur.execute("SELECT DATABASE(), count(*) FROM t")
    check("COM_INIT_DB shop", cur.fetchone() == ("shop", 2))
    try:
        c.select_db("nowhere")
        check("COM_INIT_DB nowhere: 1049", False, "no error")
    except pymysql.err.OperationalError as e:
        check("COM_INIT_DB nowhere: 1049", e.args[0] == 1049, e)
    cur.execute("SELECT DATABASE()")
    check("a failed COM_INIT_DB keeps the database", cur.fetchone()[0] == "shop")
    other = connect(port, autocommit=True)
    oc = other.cursor()
    oc.execute("SHOW PROCESSLIST")
    dbs = {int(row[0]): row[3] for row in oc.fetchall()}
    check("SHOW PROCESSLIST: each connection's db",
          dbs.get(c.thread_id()) == "shop" and dbs.get(other.thread_id()) == "test", dbs)
    a = CClient(port)
    a.query("USE shop")
    check("reset: mysql_reset_connection", a.lib.mysql_reset_connection(a.m) == 0, a.errno())
    check("reset: the database stays", a.query("SELECT DATABASE()") == "shop")
    a.close()
    cur.execute("DROP DATABASE shop")
    cur.execute("SELECT DATABASE()")
    check("DROP DATABASE of the current one: none selected", cur.fetchone()[0] is None)
    try:
        cur.execute("SELECT * FROM t")
        check("no database selected: 1046", False, "no error")
    except pymysql.err.OperationalError as e:
        check("no database selected: 1046", e.args[0] == 1046, e)
    other.close()
    c.close()


def main():
    binary = os.path.abspath(sys.argv[1])
    if shutil.which("mariadb") is None:
        print("mariadb client missing (apt-get install mariadb-client)")
        return 1
    tmp = tempfile.mkdtemp(prefix="minnowd_db_test_")
    srv = Minnowd(binary, tmp)
    try:
        test_handshake_database(srv.port)
        test_init_db(srv.port)
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
