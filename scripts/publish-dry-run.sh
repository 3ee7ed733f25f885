#!/usr/bin/env bash
# `npm publish --dry-run` for every publishable package, one workspace at a time, failing on any
# warning other than the expected "requires you to be logged in (dry-run)". It never publishes:
# --dry-run is passed and also forced through the environment (npm_config_dry_run), so a flag
# lost in an edit still cannot publish.
# Usage: scripts/publish-dry-run.sh   (after `npm run build`; needs the npm registry for the dry run)
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_dry_run=true
status=0
for dir in packages/*/; do
  name="$(node -p "require('./${dir}package.json').name")"
  if [ "$(node -p "Boolean(require('./${dir}package.json').private)")" = true ]; then continue; fi
  log="$(mktemp)"
  if ! npm publish --dry-run --workspace "$name" >"$log" 2>&1; then
    echo "FAIL $name"; cat "$log"; status=1
  elif grep -v 'requires you to be logged in' "$log" | grep -Ei 'npm (warn|err)'; then
    echo "WARN $name (see above)"; status=1
  else
    echo "ok   $name ($(grep -Eo 'total files: +[0-9]+' "$log" | grep -Eo '[0-9]+') files, $(grep -Eo 'package size: +[0-9.]+ [kM]?B' "$log" | sed 's/package size: *//'))"
  fi
  rm -f "$log"
done
exit "$status"
