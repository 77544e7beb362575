#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# build-aux/slurm-kit.sh env DIR: unpacks DIR's .deb files into a private
# prefix once (dpkg -x, nothing under /), names the daemons as the
# packages' postinst would (slurmd -> slurmd-wlm), and prints the lines
# that put them first on PATH, their libraries on LD_LIBRARY_PATH, and the
# PluginDir and slurmstepd tests/slurm_cluster.sh uses. The packages
# here are small ones the test builds with dpkg-deb, laid out as Debian's
# (fetch needs the archive, which a test cannot count on).
. "$GPUMIX_TOP/tests/lib.sh"
scratch_dir >/dev/null
tmp=$_scratch
trap 'rm -rf "$tmp"' EXIT
kit=$GPUMIX_TOP/build-aux/slurm-kit.sh

if ! command -v dpkg-deb >/dev/null; then
	skip "dpkg-deb is not installed"
	done_testing
	exit
fi
mkdeb() { # mkdeb NAME FILE...: a package holding those files
	local r=$tmp/src/$1 f
	mkdir -p "$r/DEBIAN"
	printf 'Package: %s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
		"$1" >"$r/DEBIAN/control"
	shift
	for f in "$@"; do
		mkdir -p "$r/$(dirname "$f")"
		printf '#!/bin/sh\necho %s\n' "$(basename "$f")" >"$r/$f"
		chmod +x "$r/$f"
	done
	dpkg-deb --build "$r" "$tmp/debs/$(basename "$r")_1_amd64.deb" >/dev/null
}
mkdir -p "$tmp/debs"
err=$(sh "$kit" env "$tmp/debs" 2>&1)
check_match "no packages: an error naming the directory and the fetch command" \
	"no slurmd_\*\.deb in $tmp/debs \(run: slurm-kit.sh fetch $tmp/debs\)" "$err"
mkdeb slurmd usr/sbin/slurmd-wlm usr/sbin/slurmstepd-wlm
mkdeb slurmctld usr/sbin/slurmctld-wlm
mkdeb slurm-client usr/bin/sbatch
mkdeb slurm-wlm-basic-plugins usr/lib/x86_64-linux-gnu/slurm-wlm/gres_gpu.so
env=$(cd "$tmp" && sh "$kit" env debs)
check_eq "env exits 0" 0 "$?"
p=$tmp/debs/prefix
check "the packages are unpacked into DIR/prefix" test -x "$p/usr/bin/sbatch"
check_eq "the daemons' names (update-alternatives' links)" \
	"slurmctld slurmd slurmstepd" \
	"$(cd "$p/usr/sbin" && for f in slurmctld slurmd slurmstepd; do
		[ "$(./$f)" = "$f-wlm" ] && printf '%s ' "$f"; done | sed 's/ $//')"
got=$(env -i HOME="$tmp" PATH=/usr/bin:/bin sh -c "$env"'
	command -v slurmd; command -v sbatch; echo "$LD_LIBRARY_PATH"
	echo "$GPUMIX_SLURM_PLUGINDIR"; echo "$GPUMIX_SLURMSTEPD"')
check_eq "evaluated: the prefix's commands first, its libraries and plugins" \
	"$p/usr/sbin/slurmd
$p/usr/bin/sbatch
$p/usr/lib/x86_64-linux-gnu:$p/lib/x86_64-linux-gnu:$p/usr/lib/x86_64-linux-gnu/slurm-wlm
$p/usr/lib/x86_64-linux-gnu/slurm-wlm
$p/usr/sbin/slurmstepd" "$got"
touch -d 2000-01-01 "$p/usr/bin/sbatch"
sh "$kit" env "$tmp/debs" >/dev/null
check_eq "a second env does not unpack again" 2000 "$(date -r "$p/usr/bin/sbatch" +%Y)"
got=$(GPUMIX_SLURM_PREFIX=$tmp/other sh "$kit" env "$tmp/debs")
check_match "GPUMIX_SLURM_PREFIX chooses the prefix" "GPUMIX_SLURM_KIT=\"$tmp/other\"" "$got"
check "... unpacked there" test -x "$tmp/other/usr/sbin/slurmd"
check_fails "an unknown subcommand is a usage error" sh "$kit" install "$tmp/debs"
done_testing
