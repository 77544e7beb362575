#!/bin/sh
# SPDX-License-Identifier: MIT
#
# SLURM and munge for a machine that has neither and no package registry
# (a GPU host): Debian 12's packages, fetched here and unpacked there into
# a private prefix (dpkg -x, never into /). doc/slurm.md says how to use it.
#
#   slurm-kit.sh fetch DIR   download the .deb files into DIR (on a Debian
#                            12 machine that reaches its package archive)
#   slurm-kit.sh env DIR     unpack them into PREFIX (GPUMIX_SLURM_PREFIX,
#                            default DIR/prefix) once, and print the shell
#                            lines that run them from there:
#                              eval "$(sh build-aux/slurm-kit.sh env DIR)"
#                            tests/slurm_cluster.sh reads GPUMIX_SLURM_KIT
#                            (the PluginDir and slurmstepd inside PREFIX)
set -eu
# The daemons and commands, the plugins, and the runtime libraries an
# Ubuntu 24.04 base system lacks (the others, libc, zlib, libgcrypt, libpam,
# liblz4, are there; libyaml and libnuma come with ../shared/gpu-host too).
pkgs="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2
      libhwloc15 libnuma1 libjson-c5 liblua5.1-0 libdbus-1-3 libreadline8
      libyaml-0-2 libudev1"

usage() { echo "usage: slurm-kit.sh fetch|env DIR" >&2; exit 2; }
[ $# = 2 ] || usage
dir=$2

case $1 in
fetch)
	mkdir -p "$dir"
	cd "$dir"
	[ -n "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock)" ] ||
		apt-get update >/dev/null
	for p in $pkgs; do
		ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 ||
			{ echo "slurm-kit: cannot download $p (apt-get download $p)" >&2; exit 1; }
	done
	echo "$(ls ./*.deb | wc -l) packages in $dir ($(du -sh . | cut -f1))"
	;;
env)
	ls "$dir"/slurmd_*.deb >/dev/null 2>&1 ||
		{ echo "slurm-kit: no slurmd_*.deb in $dir (run: slurm-kit.sh fetch $dir)" >&2; exit 1; }
	dir=$(cd "$dir" && pwd)
	p=${GPUMIX_SLURM_PREFIX:-$dir/prefix}
	if [ ! -e "$p/.done" ]; then
		mkdir -p "$p"
		for f in "$dir"/*.deb; do dpkg -x "$f" "$p"; done
		# The packages' postinst makes these names (update-alternatives).
		for b in slurmctld slurmd slurmstepd; do
			ln -sf "$b-wlm" "$p/usr/sbin/$b"
		done
		touch "$p/.done"
	fi
	lib=$p/usr/lib/x86_64-linux-gnu
	echo "export PATH=\"$p/usr/bin:$p/usr/sbin:\$PATH\""
	echo "export LD_LIBRARY_PATH=\"$lib:$p/lib/x86_64-linux-gnu:$lib/slurm-wlm\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
	echo "export GPUMIX_SLURM_KIT=\"$p\""
	echo "export GPUMIX_SLURM_PLUGINDIR=\"$lib/slurm-wlm\""
	echo "export GPUMIX_SLURMSTEPD=\"$p/usr/sbin/slurmstepd\""
	;;
*) usage ;;
esac
