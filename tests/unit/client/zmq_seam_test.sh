#!/usr/bin/env bash
# ZeroMQ stays behind client/transport/zmq_socket.h: no other source file that goes into
# a shipped program or library (the list follows the BUILD files: cc_sources)
# includes libzmq's headers or calls libzmq. Tests and benchmarks that play a
# raw ZeroMQ peer are not shipped and not listed.
set -euo pipefail
root="${TEST_SRCDIR:?}/ftb"
listing="$root/tests/unit/client/product_sources.list"
checked=0
offenders=()
while IFS= read -r file; do
  [[ -n "$file" && "$file" != client/transport/zmq_socket.cc ]] || continue
  checked=$((checked + 1))
  if grep -nE '#[[:space:]]*include[[:space:]]*[<"]zmq|\bzmq::|\bzmq_[a-z0-9_]+\(' "$root/$file" >/dev/null; then
    offenders+=("$file")
  fi
done <"$listing"
if ((checked < 100)); then
  echo "only $checked sources listed: the listing is not what this test expects" >&2
  exit 1
fi
if ((${#offenders[@]} > 0)); then
  echo "libzmq used outside client/transport/zmq_socket.cc (use client/transport/zmq_socket.h):" >&2
  for file in "${offenders[@]}"; do
    grep -nE '#[[:space:]]*include[[:space:]]*[<"]zmq|\bzmq::|\bzmq_[a-z0-9_]+\(' "$root/$file" | sed "s|^|  $file:|" >&2
  done
  exit 1
fi
echo "$checked shipped sources checked: libzmq only in client/transport/zmq_socket.cc"
