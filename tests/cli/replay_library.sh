#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgpumix-replay is linked into every generated replay program, so it
# exports only gm_-prefixed symbols: its helpers (and common/'s) are local
# to its one object and cannot clash with anything a program links.
. "$(dirname "$0")/../lib.sh"
lib=$GPUMIX_BUILD/libgpumix-replay.a
check "the library exists" test -f "$lib"
syms=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }')
check "it exports the runtime's entry points" \
	grep -qx gm_replay_main <<<"$syms"
bad=$(grep -v '^gm_' <<<"$syms" | head -5 | tr '\n' ' ')
check_eq "every symbol it exports carries the gm_ prefix" "" "$bad"
done_testing
