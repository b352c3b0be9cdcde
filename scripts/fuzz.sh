#!/usr/bin/env bash
# Fuzzes every Jazzer target for real (JAZZER_FUZZ=1), each for its @FuzzTest maxDuration
# (30 s), starting from its saved corpus under src/test/resources/…/<Class>Inputs/.
#   scripts/fuzz.sh                      every target
#   scripts/fuzz.sh atoms:ExtXyzFuzzTest one (module:Class)
# A finding fails the run (exit 1; a tree that does not build: exit 2); Jazzer saves the input as crash-* beside the corpus and this script
# copies it back into the repository: commit it and every `./mvnw verify` replays it as a
# regression test.
#
# Why a copy of the tree compiled for Java 23: Jazzer 0.24's bundled ASM reads class files up
# to version 67 (Java 23). Penstock's own class files (69, Java 25) would be left
# uninstrumented, and libFuzzer without coverage feedback never grows its corpus beyond the
# empty input. The fuzzed modules (core, formats, atoms) compile with --release 23 in
# target/fuzz-tree, so the fuzzers see coverage; the build the tests and users run is untouched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
targets=(formats:NpyHeaderFuzzTest formats:ParquetRowsFuzzTest formats:ArrowRowsFuzzTest formats:ZarrArrayFuzzTest atoms:ExtXyzFuzzTest atoms:LammpsDataFuzzTest
         atoms:PipelineSpecFuzzTest)
[ $# -gt 0 ] && targets=("$@")
tree="$root/target/fuzz-tree"
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$root" --exclude='./target' --exclude='*/target' --exclude='./.git' --exclude='*/.cifuzz-corpus' -cf - \
    pom.xml mvnw .mvn bom core test-support formats atoms | tar -C "$tree" -xf -
# only the modules fuzzed: a reactor of bom, core, test-support, formats, atoms
sed -i -E '/<module>(quantum|metrics|cuda|flink|cli|benchmarks|examples)<\/module>/d' "$tree/pom.xml"
cd "$tree"
# compiled in the copy's own reactor (nothing installed: ~/.m2 keeps the real build's jars)
# (exit 2 when it does not build: that is not a finding, and CI fails on it — a module added to the
# reactor and not to the sed line above once left CI's fuzz step running nothing, unnoticed)
./mvnw -B -q -o test-compile -Dmaven.compiler.release=23 >/dev/null 2>&1 \
  || ./mvnw -B -q test-compile -Dmaven.compiler.release=23 \
  || { echo "fuzz: the fuzz tree ($tree) does not build" >&2; exit 2; }
failed=0
for t in "${targets[@]}"; do
  module="${t%%:*}"; test="${t##*:}"
  echo "fuzz: $test ($module)"
  log="$root/target/fuzz-$test.log"
  mkdir -p "$root/target"
  # In its own session, so that a hang (an input the code under test never returns from: libFuzzer
  # saves nothing then) is stopped with every process it started once FUZZ_LIMIT_S have passed.
  setsid env JAZZER_FUZZ=1 ./mvnw -B -q -o test -pl "$module" -am -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djunit.jupiter.execution.timeout.mode=disabled -Dpenstock.jazzer.hooks=true \
      -Dmaven.compiler.release=23 >"$log" 2>&1 &
  pid=$!
  deadline=$((SECONDS + ${FUZZ_LIMIT_S:-240}))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    failed=1
    echo "  HANG: still running after ${FUZZ_LIMIT_S:-240} s, stopped; the last input is not saved (see $log)"
  elif wait "$pid"; then
    grep -E "^#[0-9]+.*(DONE|pulse)" "$log" | tail -1 | sed 's/^/  /' || true
  else
    failed=1
    echo "  FINDING or failure: see $log"
    grep -E "FuzzTestFindingException|Test unit written|libFuzzer: timeout|OutOfMemoryError" "$log" | head -3 | sed "s/^/  /" || true
  fi
done
# findings back into the repository's corpus (they are regression tests from now on)
# (a fuzz test with @Timeout has its bound passed to libFuzzer: an input that hangs is saved as
# timeout-*; JUnit's own timeout is off while fuzzing, as it would time the whole run)
( cd "$tree" && find . -path '*/src/test/resources/*' \( -name 'crash-*' -o -name 'timeout-*' \) ) | while read -r f; do
  [ -e "$root/$f" ] && continue # already in the corpus
  mkdir -p "$root/$(dirname "$f")"; cp "$tree/$f" "$root/$f"
  case "$(basename "$f")" in
    timeout-*) echo "saved finding: $f (a hang: replay it before committing it to the corpus, whose replay has the same bound;"
               echo "  an input Hardwood's Parquet decoder spins on belongs in formats/src/test/resources/dev/penstock/formats/parquet/hangs/, checked by ParquetStallTest)" ;;
    *) echo "saved finding: $f (commit it: a regression test)" ;;
  esac
done
exit $failed
