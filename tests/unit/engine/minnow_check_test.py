#!/usr/bin/env python3
"""minnow_check end to end: a database written by kv_example checks clean (exit 0, one line per
tree, "ok"); the same file with a flipped byte in a used page is reported damaged (exit 1, a
Corruption message naming the file), never a crash; a missing file is exit 1; no argument is 2.

usage: minnow_check_test.py KV_EXAMPLE MINNOW_CHECK
"""
import os
import subprocess
import sys
import tempfile

PAGE = 16384


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60)


def main(kv_example: str, minnow_check: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "example.minnow")
        r = run(kv_example, db)
        assert r.returncode == 0, f"kv_example failed: {r.stdout}{r.stderr}"

        r = run(minnow_check, db)
        assert r.returncode == 0, f"clean database: exit {r.returncode}: {r.stdout}{r.stderr}"
        assert "(catalog)" in r.stdout and "fruit" in r.stdout and r.stdout.strip().endswith("ok"), r.stdout

        with open(db, "r+b") as f:
            header = f.read(PAGE)
            pages = int.from_bytes(header[48:52], "little")
            assert pages >= 3, pages
            f.seek((pages - 1) * PAGE + 100)  # the last used page: a tree page
            b = f.read(1)
            f.seek((pages - 1) * PAGE + 100)
            f.write(bytes([b[0] ^ 0x20]))
        # The doublewrite buffer would restore the page (its last write is still there): this
        # test is about reporting damage, so empty it.
        open(db + ".dblwr", "wb").close()
        r = run(minnow_check, db)
        assert r.returncode == 1, f"damaged database: exit {r.returncode}: {r.stdout}{r.stderr}"
        assert "Corruption" in r.stderr and db in r.stderr, r.stderr

        r = run(minnow_check, os.path.join(tmp, "missing.minnow"))
        assert r.returncode == 1 and "NotFound" in r.stderr, r.stderr
        assert not os.path.exists(os.path.join(tmp, "missing.minnow"))
        r = run(minnow_check)
        assert r.returncode == 2, r.returncode
    print("minnow_check_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
