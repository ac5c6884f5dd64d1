#!/usr/bin/env bash
# Smoke test of one experiment program: runs it at a tiny size and checks that it succeeded and
# that each CSV it should write has its header and at least one row. Judges no figure, but a
# CSV named as NAME:COL+COL must hold a number above 0 in each of those columns in every row
# (counters that must have moved).
#   experiment_smoke.sh PROGRAM OUT_DIR CSV[:COL+COL...][,CSV...] [ARGS...]
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
for spec in "${names[@]}"; do
  name=${spec%%:*} cols=
  [[ $spec == *:* ]] && cols=${spec#*:}
  f=$out/$name
  [[ -s $f ]] || { echo "FAIL: $f was not written" >&2; exit 1; }
  lines=$(wc -l <"$f")
  ((lines >= 2)) || { echo "FAIL: $f has no data rows" >&2; exit 1; }
  if ((compare)) && ! grep -qE '(,this run$|^MariaDB)' "$f"; then
    echo "FAIL: $f has no figures measured on MariaDB in this run" >&2
    exit 1
  fi
  if [[ -n $cols ]]; then
    # The CSVs these columns come from hold no quoted commas.
    awk -F, -v cols="$cols" '
      NR == 1 { n = split(cols, want, "+"); for (i = 1; i <= n; ++i) {
                  for (c = 1; c <= NF; ++c) if ($c == want[i]) at[i] = c
                  if (!(i in at)) { print "FAIL: no column " want[i]; bad = 1; exit } }
                next }
      { for (i = 1; i <= n; ++i) if (!($at[i] + 0 > 0)) {
          print "FAIL: row " NR - 1 ": " want[i] " is " $at[i] ": " $0; bad = 1 } }
      END { exit bad }' "$f" >&2 || exit 1
  fi
  echo "ok: $f ($((lines - 1)) rows${cols:+, $cols above 0})"
done
