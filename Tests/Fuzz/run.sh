#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/Fuzz/README.md) and runs each for its share of a time budget.
#
# usage: Tests/Fuzz/run.sh [--merge] SECONDS [TARGET ...]
#        Tests/Fuzz/run.sh --smoke [TARGET ...]   (each input of the corpora and seeds once)
#
# SECONDS is split evenly over the targets (default: all of them). Each run starts from the committed corpus
# (Tests/Fuzz/corpus/TARGET) and the generated seeds (Tests/Scripts/make-fuzz-seeds.py); what it finds is kept in
# .build-fuzz/work/corpus/TARGET for the next run. Prints the executions per target. Exits non-zero if a target
# crashed, hung, leaked or ran out of memory; its input is in .build-fuzz/work/artifacts/TARGET/.
# --merge then minimizes each target's corpus into Tests/Fuzz/corpus/TARGET (to commit).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"

merge=false
smoke=false
if [[ "${1:-}" == "--merge" ]]; then
  merge=true
  shift
elif [[ "${1:-}" == "--smoke" ]]; then
  # Every committed and generated input once, no mutation: the same result on every run (what CI runs;
  # mutating for a few seconds finds new inputs by chance, and a CI run must not depend on chance).
  smoke=true
  shift
  set -- 0 "$@"
fi
seconds="${1:?usage: Tests/Fuzz/run.sh [--merge|--smoke] SECONDS [TARGET ...]}"
shift
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=(zip tar unpack records sync serve); fi

scratch=.build-fuzz
work="$scratch/work"
# Only with DOCPKG_FUZZ=1 does Package.swift declare the fuzz targets.
export DOCPKG_FUZZ=1
# libFuzzer reports the crash; Swift's backtracer would only add minutes of symbolication.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"

# `--sanitize` links the runtimes, but swiftc keeps only its last `-sanitize=` option (SwiftPM passes one per
# sanitizer, so Swift code got AddressSanitizer without coverage): the combined option, last, gives both.
build=(swift build --scratch-path "$scratch" --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address)
for target in "${targets[@]}"; do
  # gold warns about every ASan check symbol it cannot export: noise, not ours.
  set +o pipefail
  "${build[@]}" --product "fuzz-$target" 2>&1 | grep -v "Cannot export local symbol"
  status=${PIPESTATUS[0]}
  set -o pipefail
  ((status == 0)) || { echo "fuzz: building fuzz-$target failed" >&2; exit 1; }
done
bin="$("${build[@]}" --show-bin-path)"

rm -rf "$work/seeds"
python3 Tests/Scripts/make-fuzz-seeds.py "$work/seeds" >/dev/null

share=$((seconds / ${#targets[@]}))
((share > 0)) || share=1
failed=()
summary=()
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  artifacts="$work/artifacts/$target/"
  committed="Tests/Fuzz/corpus/$target"
  mkdir -p "$corpus" "$artifacts" "$committed" "$work/seeds/$target"
  log="$work/$target.log"
  if $smoke; then echo "fuzz: $target, each input once (log: $log)"; else echo "fuzz: $target for ${share}s (log: $log)"; fi
  dictionary=()
  if [[ -f "Tests/Fuzz/dictionaries/$target.dict" ]]; then dictionary=(-dict="Tests/Fuzz/dictionaries/$target.dict"); fi
  status=0
  limit=(-max_total_time="$share")
  if $smoke; then limit=(-runs=0); fi
  # The inputs of past crashes and disagreements (Tests/Fuzz/regressions/TARGET-*), replayed every time.
  regressions="$work/regressions/$target"
  rm -rf "$regressions" && mkdir -p "$regressions"
  cp Tests/Fuzz/regressions/"$target"-* "$regressions"/ 2>/dev/null || true
  "$bin/fuzz-$target" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 "${dictionary[@]}" \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "$committed" "$work/seeds/$target" "$regressions" \
    >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  coverage=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
  summary+=("$target: ${execs:-?} executions (${rate:-?}/s), ${coverage:-cov: ?}, exit $status")
  if ((status != 0)); then
    failed+=("$target")
    grep -E "ERROR|SUMMARY|Fatal error|Test unit written|Base64" "$log" | head -20 >&2 || true
  fi
done

if $merge; then
  for target in "${targets[@]}"; do
    committed="Tests/Fuzz/corpus/$target"
    merged="$work/merged/$target"
    rm -rf "$merged" && mkdir -p "$merged"
    # The seeds count as covered (merge keeps only what adds coverage to its first folder), then are left out:
    # they are generated at every run.
    seeds=()
    for seed in "$work/seeds/$target"/*; do
      [[ -f "$seed" ]] || continue
      name=$(sha1sum "$seed" | cut -d' ' -f1)
      cp "$seed" "$merged/$name"
      seeds+=("$name")
    done
    "$bin/fuzz-$target" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 "$merged" "$committed" \
      "$work/corpus/$target" >"$work/$target-merge.log" 2>&1
    for name in "${seeds[@]}"; do rm -f "$merged/$name"; done
    rm -rf "$committed" && mkdir -p "$committed" && cp "$merged"/* "$committed"/ 2>/dev/null || true
    echo "fuzz: $target corpus minimized: $(ls "$committed" | wc -l) inputs, $(du -sh "$committed" | cut -f1)"
  done
fi

printf 'fuzz: %s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo "fuzz: failed: ${failed[*]} (inputs in $work/artifacts/)" >&2
  exit 1
fi
