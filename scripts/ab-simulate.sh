#!/usr/bin/env bash
# A/B of whole `penstock simulate` commands between another revision and the working tree,
# alternating, the same input and options, then `cmp` of the two outputs. Usage:
#   scripts/ab-simulate.sh REV INPUT.xyz ROUNDS -- SIMULATE_OPTIONS…
# e.g. (bench md's LJ liquid, after ./penstock bench md has written it):
#   scripts/ab-simulate.sh HEAD~1 target/bench/md-lj/full.xyz 3 -- --pipeline "nve(dt=10.7262795276, steps=300)" \
#     --potential "lj(epsilon=0.0104, sigma=3.4, cutoff=8.5, shifted=false)" --threads 1 --max-atoms 100000
# Prints each run's seconds (old, new), their medians, and whether the outputs are the same bytes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:?usage: scripts/ab-simulate.sh REV INPUT.xyz ROUNDS -- OPTIONS…}"
input="$(realpath "${2:?input}")"
rounds="${3:?rounds}"
shift 3
[ "${1:-}" = "--" ] && shift
jdk="$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -1)"
jdk="${jdk:-${JAVA_HOME:?no JDK 25 under /usr/lib/jvm and no JAVA_HOME}}"
export JAVA_HOME="$jdk"
work="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
(cd "$root" && ./mvnw -q -B -o package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip >&2)
git -C "$root" worktree add -q --detach "$work/old" "$rev"
(cd "$work/old" && ./mvnw -q -B -o package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip >&2) # the reactor's own jars in cli/target/lib
old=(); new=()
for ((r = 0; r < rounds; r++)); do
  for side in old new; do
    dir="$root"; [ "$side" = old ] && dir="$work/old"
    t0=$(date +%s.%N)
    "$jdk/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-modules jdk.incubator.vector \
      -cp "$dir/cli/target/penstock-cli.jar:$dir/cli/target/lib/*" dev.penstock.cli.Main simulate "$input" "$@" -q --out "$work/$side.xyz" 2>/dev/null
    t=$(echo "$(date +%s.%N) - $t0" | bc)
    echo "$side $t"
    if [ "$side" = old ]; then old+=("$t"); else new+=("$t"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "median old $(median "${old[@]}") s, new $(median "${new[@]}") s"
cmp -s "$work/old.xyz" "$work/new.xyz" && echo "outputs: the same bytes" || echo "outputs: DIFFER"
