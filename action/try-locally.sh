#!/usr/bin/env bash
# Run the steps of action.yml here, as GitHub would run them in a library's workflow:
#   action/try-locally.sh PROJECT_DIR [KEY=VALUE ...]     e.g. targets=mylib/x.py:A budget=4000
# Installs nothing (uses the dp-audit on PATH, or DP_AUDIT); prints the job summary and the
# published outputs, and exits with the Audit step's exit code.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=${1:?usage: try-locally.sh PROJECT_DIR [targets=...] [budget=...] [seed=...] [baseline=...] [out=...] [args=...]}
shift
if [ ! -d "$project" ]; then
  # exit 1 would read as a certified violation: a wrong argument is 2, as dp-audit's own
  echo "try-locally.sh: error: project folder '$project' does not exist" >&2
  exit 2
fi
export DP_AUDIT_TARGETS="" DP_AUDIT_BUDGET="" DP_AUDIT_SEED="" DP_AUDIT_BASELINE=""
export DP_AUDIT_OUT="dp-audit-report" DP_AUDIT_ARGS=""
for setting in "$@"; do
  key=${setting%%=*}
  value=${setting#*=}
  export "DP_AUDIT_$(echo "$key" | tr '[:lower:]-' '[:upper:]_')=$value"
done
runner=$(mktemp -d)
export GITHUB_STEP_SUMMARY="$runner/summary.md" GITHUB_OUTPUT="$runner/output"
export GITHUB_ACTION_PATH="$here/.."
(cd "$project" && bash "$GITHUB_ACTION_PATH/action/run.sh")
code=$?
echo "== job summary ($GITHUB_STEP_SUMMARY) =="
head -n 20 "$GITHUB_STEP_SUMMARY"
echo "== step outputs =="
cat "$GITHUB_OUTPUT"
echo "== artifact: $project/$DP_AUDIT_OUT =="
ls "$project/$DP_AUDIT_OUT" 2>/dev/null
exit "$code"
