#!/usr/bin/env bash
# The Audit step of action.yml: run dp-audit from the DP_AUDIT_* settings, put report.md in the
# job summary, publish the exit code, and exit with it (0 clean, 1 violation, 2 error).
set -uo pipefail

args=(run --out "${DP_AUDIT_OUT:-dp-audit-report}")
while IFS= read -r target; do
  [ -n "$target" ] && args+=(--adapter "$target")
done <<< "${DP_AUDIT_TARGETS:-}"
[ -n "${DP_AUDIT_BUDGET:-}" ] && args+=(--budget "$DP_AUDIT_BUDGET")
[ -n "${DP_AUDIT_SEED:-}" ] && args+=(--seed "$DP_AUDIT_SEED")
[ -n "${DP_AUDIT_BASELINE:-}" ] && args+=(--baseline "$DP_AUDIT_BASELINE")
# further arguments are split on whitespace, as a shell would
read -r -a extra <<< "${DP_AUDIT_ARGS:-}"
args+=("${extra[@]}")

"${DP_AUDIT:-dp-audit}" "${args[@]}"
code=$?

report="${DP_AUDIT_OUT:-dp-audit-report}/report.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  if [ -f "$report" ]; then
    cat "$report" >> "$GITHUB_STEP_SUMMARY"
  else
    printf '## dp-audit\n\nNo report was written (exit code %s): see the job log.\n' "$code" >> "$GITHUB_STEP_SUMMARY"
  fi
fi
[ -n "${GITHUB_OUTPUT:-}" ] && echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit "$code"
