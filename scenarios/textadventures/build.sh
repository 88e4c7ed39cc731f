#!/usr/bin/env bash
# Compile every scenarios/textadventures/<game>/<game>.inf to Z-code version 5,
# writing <game>.z5 next to its source. Sources set Serial "261129", so a
# rebuild on any day is byte-identical.
#   usage: scenarios/textadventures/build.sh
#   env:   INFORM6 (compiler, default inform6), INFORM6_LIBRARY (library dir)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
inform="${INFORM6:-inform6}"
library="${INFORM6_LIBRARY:-/usr/share/inform6/library}"

if ! command -v "$inform" >/dev/null 2>&1; then
    echo "error: the Inform 6 compiler ('$inform') is not installed." >&2
    echo "       Install it with: sudo apt-get install inform6-compiler" >&2
    exit 1
fi
if [ ! -f "$library/parser.h" ] && [ ! -f "$library/Parser.h" ]; then
    echo "error: the Inform 6 library was not found in $library." >&2
    echo "       Install it with: sudo apt-get install inform6-compiler" >&2
    echo "       (or point INFORM6_LIBRARY at the folder holding parser.h)" >&2
    exit 1
fi

shopt -s nullglob
sources=("$here"/*/*.inf)
if [ "${#sources[@]}" -eq 0 ]; then
    echo "error: no .inf sources found under $here" >&2
    exit 1
fi

for src in "${sources[@]}"; do
    out="${src%.inf}.z5"
    echo "compiling ${src#"$here"/} -> ${out#"$here"/}"
    if ! "$inform" -v5 "+include_path=$library" "$src" "$out"; then
        echo "error: compiling $src failed" >&2
        exit 1
    fi
done
