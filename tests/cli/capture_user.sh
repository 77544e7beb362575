#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpumix capture as a non-root user with a private LTTNG_HOME and no
# session daemon: capture starts the user's own daemon (which honours
# LTTNG_HOME) and the bundle is complete. The daemon is stopped again.
# Needs root (to run as 'nobody'); skips visibly otherwise.
. "$GPUMIX_TOP/tests/lib.sh"
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 ||
   ! su -s /bin/sh nobody -c "test -x '$GPUMIX' -a -r '$GPUMIX_BUILD/libgpumix-capture.so'" 2>/dev/null; then
	skip "needs root, a 'nobody' user and a build it can read"
	done_testing
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
chmod 777 "$tmp"
cleanup() {
	[ -f "$tmp/.lttng/lttng-sessiond.pid" ] && kill "$(cat "$tmp/.lttng/lttng-sessiond.pid")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
E=$GPUMIX_BUILD/tests/capture_emitter
su -s /bin/sh nobody -c "cd '$tmp' && LTTNG_HOME='$tmp' '$GPUMIX' -q capture -o '$tmp/b' -- '$E' --mini" \
	>"$tmp/out" 2>"$tmp/err"; rc=$?
check_eq "a non-root capture exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$tmp/err"
check "it started the user's own session daemon under LTTNG_HOME" test -S "$tmp/.lttng/client-lttng-sessiond"
check_match "the bundle is complete" "^complete = yes" "$(cat "$tmp/b/manifest" 2>/dev/null)"
check_match "the bundle holds the events" "^events.found = 15" "$(cat "$tmp/b/manifest" 2>/dev/null)"
done_testing
