#!/usr/bin/env bash
# Every C++ file of the tree is as clang-format 14 (the project's .clang-format) writes it.
# Exit status: 0 formatted, 1 not (the files are listed, with `clang-format -i` to fix them),
# 77 skipped (no clang-format 14: other versions format differently).
# usage: clang_format.sh SOURCE_ROOT
set -uo pipefail
root=${1:?usage: clang_format.sh SOURCE_ROOT}
cd "$root" || exit 1
tool=
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null &&
    "$candidate" --version | grep -q 'version 14\.'; then
    tool=$candidate
    break
  fi
done
[ -n "$tool" ] || { echo "clang_format.sh: no clang-format 14: skipped"; exit 77; }
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files '*.cc' '*.h')
else
  files=$(find apps bench fuzz src tests -name '*.cc' -o -name '*.h')
fi
# One run over every file; its complaints name each file ("path:line:col: error: ...").
mapfile -t bad < <(echo "$files" | xargs "$tool" --dry-run --Werror 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted as clang-format 14 writes them (${#bad[@]} files):"
  printf '  %s\n' "${bad[@]}"
  echo "fix: $tool -i ${bad[*]}"
  exit 1
fi
echo "$(echo "$files" | wc -w) files formatted"
