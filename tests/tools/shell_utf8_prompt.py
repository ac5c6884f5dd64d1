#!/usr/bin/env python3
"""The minnow shell's interactive prompt passes UTF-8 through unchanged.

Runs the shell on a pseudo-terminal (so it reads through libedit, as a user at a terminal
does) with the "C" locale, where libedit used to drop every byte above 0x7f, types statements
holding non-ASCII text at the prompt, and checks that the stored text comes back byte for byte.
Usage: shell_utf8_prompt.py PATH_TO_MINNOW
"""

import os
import pty
import select
import sys
import tempfile
import time

NAME = "José Müller 中文"


def read_until(fd, marker, timeout=20.0):
    out = b""
    end = time.time() + timeout
    while marker not in out:
        left = end - time.time()
        if left <= 0:
            raise TimeoutError(f"no {marker!r} in {out!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


def main():
    shell = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        for v in ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE"):
            env.pop(v, None)
        env["LC_ALL"] = "C"  # the locale that used to lose the bytes
        env["HOME"] = tmp  # the shell's history file goes there
        env["TERM"] = "dumb"
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(shell, [shell, "--db", os.path.join(tmp, "t.db")], env)
        try:
            read_until(fd, b"> ")
            for stmt in ("CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20));",
                         f"INSERT INTO p VALUES (1, '{NAME}');",
                         "SELECT concat('[', name, ']'), CHAR_LENGTH(name) FROM p;"):
                os.write(fd, stmt.encode("utf-8") + b"\r")
                time.sleep(0.3)
            os.write(fd, b"SELECT 'done-marker';\r")
            out = read_until(fd, b"| done-marker |")
            os.write(fd, b"\\q\r")
            read_until(fd, b"Bye")
        finally:
            for _ in range(50):  # the shell ends on \q; never leave it behind
                if os.waitpid(pid, os.WNOHANG) != (0, 0):
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
        text = out.decode("utf-8", errors="replace")
        expected = f"[{NAME}]"
        # The echo of the typed line also holds the name; the result row is the bracketed one.
        if expected not in text:
            print("FAIL: the stored name is not the typed one; the shell printed:")
            print(text)
            return 1
        if f"\t{len(NAME)}\t" not in text and f"| {len(NAME)} " not in text and \
                f" {len(NAME)} " not in text:
            print(f"FAIL: CHAR_LENGTH is not {len(NAME)}; the shell printed:")
            print(text)
            return 1
        print(f"ok: typed {NAME!r} at the prompt, stored and read back unchanged")
        return 0


if __name__ == "__main__":
    sys.exit(main())
