#!/usr/bin/env bash
# Builds the engine server `leaper` with profile-guided optimisation, the
# fastest build of the same code: an instrumented binary searches the bench
# positions, LLVM merges the counts it wrote, and the release build uses
# them to lay out branches and inline where the search really goes. The
# moves and node counts are the same as the plain release build's (the
# bench signature does not change); only the speed does (engine/README.md,
# "Speed builds", for the figures).
#
#   bash engine/scripts/build-pgo.sh        -> target/pgo/leaper
#
# Needs rustup's llvm-tools component (for llvm-profdata); the script adds
# it when it is missing. Everything it writes stays under target/pgo, and
# a run starts from fresh profiles, so it can be rerun after any change.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=target/pgo
profiles="$PWD/$out/profiles"
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x $profdata ]]; then
    echo "build-pgo: llvm-profdata not found; adding rustup's llvm-tools" >&2
    rustup component add llvm-tools
fi
if [[ ! -x $profdata ]]; then
    echo "build-pgo: still no llvm-profdata at $profdata" >&2
    exit 1
fi

rm -f "$out/merged.profdata"

echo "build-pgo: 1/3 instrumented build" >&2
RUSTFLAGS="-Cprofile-generate=$profiles" \
    cargo build --release --locked -p leaper-cli --bin leaper --target-dir "$out/instrumented"

echo "build-pgo: 2/3 profiling run (leaper bench --depth 11)" >&2
# Build scripts and proc macros of the instrumented build write profiles
# too; only the engine's own run matters, so start the folder anew.
rm -rf "$profiles" && mkdir -p "$profiles"
"$out/instrumented/release/leaper" bench --depth 11 >&2
"$profdata" merge -o "$out/merged.profdata" "$profiles"

echo "build-pgo: 3/3 optimised build" >&2
# Cargo does not see a change in the profile's contents (only in the
# flags), so the optimised build starts from nothing every time.
rm -rf "$out/optimised"
RUSTFLAGS="-Cprofile-use=$PWD/$out/merged.profdata" \
    cargo build --release --locked -p leaper-cli --bin leaper --target-dir "$out/optimised"
cp "$out/optimised/release/leaper" "$out/leaper"
echo "build-pgo: built $out/leaper" >&2
"$out/leaper" bench | tail -n 1
