#!/usr/bin/env bash
# Clang's thread-safety analysis (-Wthread-safety) passes over the code whose locks are
# annotated (base/thread_annotations.h): every source file, tests aside, of a folder with an
# annotated header. Exit status: 0 clean, 1 a finding (the compiler's lines), 77 skipped (no
# clang++: GCC ignores the annotations).
# usage: thread_safety.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root=${1:?usage: thread_safety.sh SOURCE_ROOT BUILD_DIR}
build=${2:?usage: thread_safety.sh SOURCE_ROOT BUILD_DIR}
cd "$root" || exit 1
tool=
for candidate in clang++-14 clang++; do
  command -v "$candidate" >/dev/null && { tool=$candidate; break; }
done
[ -n "$tool" ] || { echo "thread_safety.sh: no clang++: skipped"; exit 77; }
mapfile -t folders < <(grep -l 'GANTRY_GUARDED_BY\|GANTRY_REQUIRES' src/*/*.h | xargs -n1 dirname |
  sort -u)
mapfile -t files < <(for f in "${folders[@]}"; do ls "$f"/*.cc; done | grep -v '_test\.cc$')
[ ${#files[@]} -gt 0 ] || { echo "thread_safety.sh: no annotated code found"; exit 1; }
out=$(printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 "$tool" -fsyntax-only -std=c++20 \
  -Wthread-safety -Werror=thread-safety -I src -isystem "$build/proto" \
  -isystem /usr/include/postgresql 2>&1)
status=$?
if [ $status -ne 0 ]; then
  echo "$out" | grep -E 'error|warning|note' | head -100
  exit 1
fi
echo "${#files[@]} files in ${folders[*]}: no thread-safety finding"
