#!/usr/bin/env bash
# `make run`: the main job. Until the data path lands it shows what is built
# and which devices zcnic can drive here.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
echo "zcnic: built apps:"
for a in "$BUILD"/bin/*; do [ -x "$a" ] && echo "  $(basename "$a")"; done
echo
if [ -x "$BUILD/bin/zn-devbind" ]; then
	"$BUILD/bin/zn-devbind" --status || true
fi
