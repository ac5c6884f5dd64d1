#!/usr/bin/env python3
"""Checks that minnow's layers include only downward (docs/ARCHITECTURE.md, style notes 2.1).

Each directory may include the directories listed for it. "minnow/status.h" lives in common;
any other "minnow/*.h" is the engine's public API. A header named *_internal.h may be included
only from its own directory (SQLite's Int.h, InnoDB's 0priv.h). Exits 1 listing every violation.
"""
import pathlib
import re
import sys

ALLOWED = {
    "common": {"common"},
    "buffer_pool": {"common"},
    "lock": {"common"},
    "btree": {"buffer_pool", "common"},
    "mvcc": {"buffer_pool", "common"},
    "log": {"buffer_pool", "common"},
    "myisam": {"btree", "lock", "log", "buffer_pool", "common"},
    # txn/ uses the public API's value types (options, isolation levels, reports) but never
    # engine/ itself: the engine hands it TxnServices (txn/txn_services.h).
    "txn": {"btree", "lock", "mvcc", "log", "buffer_pool", "common", "engine_api"},
    "engine": {"engine", "txn", "myisam", "btree", "lock", "mvcc", "log", "buffer_pool", "common"},
    "sql_lite_front": {"sql_lite_front", "engine_api", "common"},
    # server/: the wire protocol (minnowd's library), beside tools, above the SQL front.
    "server": {"server", "sql_lite_front", "engine_api", "common"},
    "tools": {"tools", "server", "sql_lite_front", "engine_api", "common"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def target_layer(include: str):
    parts = include.split("/")
    if parts[0] == "minnow":
        return "common" if parts[-1] == "status.h" else "engine_api"
    return parts[0] if len(parts) > 1 and parts[0] in ALLOWED else None


def main(root: pathlib.Path) -> int:
    problems = []
    checked = 0
    for layer, allowed in ALLOWED.items():
        allowed = allowed | {layer}
        if "engine" in allowed:
            allowed = allowed | {"engine_api"}
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in (".h", ".cc", ".cpp", ".hpp"):
                continue
            checked += 1
            text = path.read_text(errors="replace")
            for inc in INCLUDE.findall(text):
                target = target_layer(inc)
                rel = path.relative_to(root)
                if target is not None and target not in allowed:
                    problems.append(f"{rel}: includes \"{inc}\" ({target} is not below {layer})")
                if inc.endswith("_internal.h") and inc.split("/")[0] != layer:
                    problems.append(f"{rel}: includes private header \"{inc}\" of another layer")
    for p in problems:
        print(p)
    print(f"layering: {checked} files checked, {len(problems)} violations")
    return 1 if problems else 0


def self_test() -> None:
    """The check must be able to fail: a tree with one upward include must be rejected."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "btree").mkdir()
        (tmp / "btree" / "ok.cc").write_text('#include "buffer_pool/buffer_pool.h"\n')
        assert main(tmp) == 0, "a downward include was rejected"
        (tmp / "btree" / "bad.cc").write_text('#include "lock/lock_sys.h"\n')
        assert main(tmp) == 1, "an upward include was accepted"
        (tmp / "btree" / "bad.cc").write_text('#include "minnow/db.h"\n')
        assert main(tmp) == 1, "btree including the engine API was accepted"
        (tmp / "btree" / "bad.cc").unlink()
        (tmp / "txn").mkdir()
        (tmp / "txn" / "ok.cc").write_text('#include "lock/lock_sys.h"\n#include "minnow/db.h"\n')
        assert main(tmp) == 0, "txn including lock and the API's types was rejected"
        (tmp / "txn" / "bad.cc").write_text('#include "engine/database_core_internal.h"\n')
        assert main(tmp) == 1, "txn including the engine was accepted"


if __name__ == "__main__":
    self_test()
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
