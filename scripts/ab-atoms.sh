#!/usr/bin/env bash
# A/B of the in-flight relaxation (bench inflight's in-flight row) between the working tree and
# another revision, both in one JVM, alternating (scripts/ab/Alternate.java): on this project's
# VM the speed of single runs wanders by tens of percent, which separate runs cannot tell from a
# change. Usage: scripts/ab-atoms.sh REV [ROUNDS] [THREADS]   e.g. scripts/ab-atoms.sh HEAD~3 12 1,2
# Prints each build's median and minimum seconds per thread count (A: REV, B: the working tree),
# and says so if the two builds' final energies differ.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rev="${1:?usage: scripts/ab-atoms.sh REV [ROUNDS] [THREADS]}"
rounds="${2:-12}"
threads="${3:-1,2}"
work="$(mktemp -d)"
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
jdk="$(ls -d /usr/lib/jvm/*25* 2>/dev/null | head -1)" # the JDK 25 ./penstock finds first
jdk="${jdk:-${JAVA_HOME:?no JDK 25 under /usr/lib/jvm and no JAVA_HOME}}"
export JAVA_HOME="$jdk"
cd "$root"
./mvnw -q -B -o install -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip -pl core,atoms >&2
./mvnw -q -B -o package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip -pl cli >&2
git worktree add -q --detach "$work/old" "$rev"
(cd "$work/old" && ./mvnw -q -B -o compile -pl core,atoms -am >&2)
lib="$root/cli/target/lib"
mkdir -p "$work/probe"
"$jdk/bin/javac" -d "$work/probe" -cp "$root/atoms/target/classes:$root/core/target/classes:$lib/*" "$root/scripts/ab/InflightRun.java"
"$jdk/bin/javac" -d "$work/probe" "$root/scripts/ab/Alternate.java"
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dab.probe="$work/probe" -cp "$work/probe" Alternate \
  "$work/old/atoms/target/classes:$work/old/core/target/classes" "$root/atoms/target/classes:$root/core/target/classes" "$lib" \
  "$rounds" "$threads" 2> >(grep -v -x 'WARNING: Using incubator modules: jdk.incubator.vector' >&2)
