#!/bin/sh
# `make bench` calls this: run the benchmark harness with the given arguments (see Benchmarks/README.md).
cd "$(dirname "$0")/.." || exit 1
exec python3 Benchmarks/bench.py "$@"
