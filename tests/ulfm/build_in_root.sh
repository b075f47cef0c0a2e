#!/bin/bash
# Runs inside the trixie root: compiles the stencil and ftbckpt from the
# sources listed in $1 (one workspace-relative path a line, from cc_sources;
# the current directory holds them) with the root's g++ and Open MPI, into $2.
# Fails unless this Open MPI has the fault-tolerance extension: the tier is
# about run-through, a build without it would test nothing.
set -euo pipefail
list=$1 out=$2
mkdir -p "$out/obj"
grep -q 'OMPI_HAVE_MPI_EXT_FTMPI 1' "$(mpicc --showme:incdirs | tr ' ' '\n' | head -1)/mpi-ext.h" ||
  { echo "build_in_root: this Open MPI's mpi-ext.h has no OMPI_HAVE_MPI_EXT_FTMPI" >&2; exit 1; }
flags=(-O2 -I. -Wall -Wextra -Wno-missing-field-initializers -pthread)
objs=()
compile() {  # SOURCE: one object, compiled in the background (two at a time)
  local src=$1 obj
  obj=$out/obj/$(echo "$src" | tr '/' '_').o
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
mpicxx -pthread -o "$out/stencil" "${objs[@]}" -lzmq -lprotobuf -lisal -lrt
# The ULFM code path is in: the binary refers to MPIX_Comm_shrink.
# (nm's output kept first: `nm | grep -q` under pipefail fails whenever grep
# exits before nm has written everything, SIGPIPE.)
symbols=$(nm -D "$out/stencil")
grep -q MPIX_Comm_shrink <<<"$symbols" ||
  { echo "build_in_root: the stencil was built without the ULFM path (no MPIX_Comm_shrink)" >&2; exit 1; }
echo "build_in_root: $n sources compiled"
