# Sourced by tools/test.sh and tools/demo.sh: runs named stages with visible
# output, times each, and prints a summary of every stage at the end.
#
#   source tools/stages.sh
#   stage "C++ tests" "about 4 min warm, 15 cold" bazel test //...
#   finish_stages        # prints the summary; exits 1 if a stage failed
#
# A failing stage does not stop the later ones (so one run shows every
# result), unless STAGES_STOP_ON_FAILURE=1 or the stage was declared with
# `stage --required`, which stops the run when it fails (a later stage that
# needs its output would only fail again).

STAGE_NAMES=()
STAGE_RESULTS=()
STAGE_SECONDS=()
STAGES_START=$SECONDS

_stage_clock() {
  local s=$1
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

stage() {
  local required=0
  if [[ "$1" == "--required" ]]; then
    required=1
    shift
  fi
  local name=$1 estimate=$2
  shift 2
  printf '\n== [%s] %s (%s)\n' "$(date +%H:%M:%S)" "$name" "$estimate"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  local took=$((SECONDS - start))
  STAGE_NAMES+=("$name")
  STAGE_SECONDS+=("$took")
  if ((rc == 0)); then
    STAGE_RESULTS+=("passed")
    printf '== %s: passed in %s\n' "$name" "$(_stage_clock "$took")"
  else
    STAGE_RESULTS+=("FAILED (exit $rc)")
    printf '== %s: FAILED (exit %d) after %s\n' "$name" "$rc" "$(_stage_clock "$took")"
    if ((required)) || [[ "${STAGES_STOP_ON_FAILURE:-0}" == 1 ]]; then
      finish_stages
    fi
  fi
}

finish_stages() {
  local i failed=0 passed=0
  printf '\n== summary (%s in all)\n' "$(_stage_clock $((SECONDS - STAGES_START)))"
  for i in "${!STAGE_NAMES[@]}"; do
    printf '   %-66s %-18s %s\n' "${STAGE_NAMES[$i]}" "${STAGE_RESULTS[$i]}" "$(_stage_clock "${STAGE_SECONDS[$i]}")"
    if [[ "${STAGE_RESULTS[$i]}" == passed ]]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  done
  echo "stages: $passed passed, $failed failed"
  ((failed == 0)) || exit 1
  return 0
}

# Bazel's own progress, one line every few seconds, readable in a log.
BAZEL_PROGRESS=(--curses=no --color=no --show_progress_rate_limit=10)

# `bazel ARGS` with its progress shown, less the linux-sandbox debug lines
# that Debian's Bazel 4 prints with every action's output (thousands of lines
# on a cold build); Bazel's exit status is kept.
bazel_shown() {
  bazel "$1" "${BAZEL_PROGRESS[@]}" "${@:2}" 2>&1 | { grep --line-buffered -v 'src/main/tools/linux-sandbox' || true; }
}
