#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a consumer against it twice:
# with CMake's find_package and with pkg-config; both must run.
# usage: check.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/cmake" > "$work/build.log"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/cmake/consumer"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c11 "$src/tests/install/consumer/main.c" -o "$work/pc_consumer" $(pkg-config --cflags --libs tactus)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc_consumer"
