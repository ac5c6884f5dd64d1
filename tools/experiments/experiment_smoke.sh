#!/usr/bin/env bash
# Smoke test of one experiment program: runs it at a tiny size and checks that it succeeded and
# that each CSV it should write has its header and at least one row. Judges no figure.
#   experiment_smoke.sh PROGRAM OUT_DIR CSV[,CSV...] [ARGS...]
set -euo pipefail
# With --compare-mariadb among ARGS it needs Debian's mariadb-server, and is skipped (exit 77)
# without it; each CSV must then hold figures measured on it (a row marked "this run", or one
# whose engine column names MariaDB).
program=$1 out=$2 csvs=$3
shift 3
compare=0
for a in "$@"; do [[ $a == --compare-mariadb ]] && compare=1; done
if ((compare)) && [[ ! -x /usr/sbin/mariadbd ]]; then
  echo "skipped: mariadb-server is not installed"
  exit 77
fi
rm -rf "$out"
"$program" "$@" --out "$out"
IFS=, read -ra names <<<"$csvs"
for name in "${names[@]}"; do
  f=$out/$name
  [[ -s $f ]] || { echo "FAIL: $f was not written" >&2; exit 1; }
  lines=$(wc -l <"$f")
  ((lines >= 2)) || { echo "FAIL: $f has no data rows" >&2; exit 1; }
  if ((compare)) && ! grep -qE '(,this run$|^MariaDB)' "$f"; then
    echo "FAIL: $f has no figures measured on MariaDB in this run" >&2
    exit 1
  fi
  echo "ok: $f ($((lines - 1)) rows)"
done
