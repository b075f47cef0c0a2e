#!/bin/bash
# Runs inside the trixie root: compiles ftbckpt and the programs that use it
# from the sources listed in $1 (one workspace-relative path a line, from
# cc_sources; the current directory holds them) with the root's g++ and Open
# MPI, into $2. Each further argument is a listed source that holds a main():
# it becomes the program $2/<its name without extension>, linked with every
# listed source that is not another program's main.
# Fails unless this Open MPI has the fault-tolerance extension: the tier is
# about run-through, a build without it would test nothing.
set -euo pipefail
list=$1 out=$2
shift 2
mains=("$@")
((${#mains[@]})) || { echo "usage: build_in_root.sh LIST OUT MAIN_SOURCE..." >&2; exit 2; }
mkdir -p "$out/obj"
grep -q 'OMPI_HAVE_MPI_EXT_FTMPI 1' "$(mpicc --showme:incdirs | tr ' ' '\n' | head -1)/mpi-ext.h" ||
  { echo "build_in_root: this Open MPI's mpi-ext.h has no OMPI_HAVE_MPI_EXT_FTMPI" >&2; exit 1; }
objOf() { echo "$out/obj/$(echo "$1" | tr '/' '_').o"; }
flags=(-O2 -I. -Wall -Wextra -Wno-missing-field-initializers -pthread)
objs=()
compile() {  # SOURCE: one object, compiled in the background (two at a time)
  local src=$1 obj
  obj=$(objOf "$src")
  objs+=("$obj")
  case "$src" in
    *.c) mpicc "${flags[@]}" -c "$src" -o "$obj" & ;;
    *) mpicxx -std=c++20 "${flags[@]}" -c "$src" -o "$obj" & ;;
  esac
  while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
}
n=0
while read -r src; do
  case "$src" in *.cc | *.c) compile "$src"; n=$((n + 1)) ;; esac
done <"$list"
wait
# A compiler that failed left no object (its error is above).
for o in "${objs[@]}"; do [[ -s "$o" ]] || { echo "build_in_root: $o missing" >&2; exit 1; }; done
for main in "${mains[@]}"; do
  name=$(basename "${main%.*}")
  others=()
  for m in "${mains[@]}"; do [[ "$m" == "$main" ]] || others+=("$(objOf "$m")"); done
  link=()
  for o in "${objs[@]}"; do [[ " ${others[*]} " == *" $o "* ]] || link+=("$o"); done
  mpicxx -pthread -o "$out/$name" "${link[@]}" -lzmq -lprotobuf -lisal -lrt
  # The ULFM code path is in: the binary refers to MPIX_Comm_shrink.
  # (nm's output kept first: `nm | grep -q` under pipefail fails whenever grep
  # exits before nm has written everything, SIGPIPE.)
  symbols=$(nm -D "$out/$name")
  grep -q MPIX_Comm_shrink <<<"$symbols" ||
    { echo "build_in_root: $name was built without the ULFM path (no MPIX_Comm_shrink)" >&2; exit 1; }
done
echo "build_in_root: $n sources compiled, ${#mains[@]} programs linked"
