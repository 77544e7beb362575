# SPDX-License-Identifier: MIT
#
# Sourced by the tests and benchmarks that need a SLURM cluster: a real
# one-node cluster (Debian's slurmctld and slurmd, authenticated by
# munged) started on loopback in a private directory: its own slurm.conf
# (SLURM_CONF, exported), munge key and socket, state, spool, logs and
# pid files, free TCP ports, no accounting. Nothing under /etc or /var
# is used or changed.
#
#   slurm_missing          print what is missing (packages), or nothing
#   slurm_start DIR [--gpus [DEVDIR]]
#                          start munged, slurmctld and slurmd under DIR;
#                          the node is idle when it returns 0. --gpus: the
#                          node offers gres/gpu, one per DEVDIR/nvidiaN
#                          (default /dev), in DIR/gres.conf; fails where
#                          there is none
#   slurm_gres_conf DEVDIR print the gres.conf of DEVDIR's GPUs
#
# With the kit (build-aux/slurm-kit.sh env; doc/slurm.md) the daemons
# and plugins come from its private prefix: GPUMIX_SLURM_PLUGINDIR is the
# PluginDir and GPUMIX_SLURMSTEPD the slurmstepd slurmd starts.
#   slurm_stop             cancel every job, stop the three daemons (by
#                          their pid files) and wait for them to exit;
#                          safe to call twice and when not started
#   slurm_wait_idle [SECS] wait until no job is queued or running (60)
_slurm_dir=
# The daemons are in /usr/sbin, which a user's PATH may leave out.
PATH=$PATH:/usr/sbin:/sbin

slurm_missing() {
	local p m=
	for p in munged munge slurmctld slurmd sbatch squeue scancel scontrol; do
		command -v "$p" >/dev/null 2>&1 || m="$m $p"
	done
	[ -n "$m" ] && echo "not installed:$m (packages munge slurmctld slurmd" \
		"slurm-client: build-aux/packages)"
}

_slurm_ports() { # two free TCP ports on loopback
	python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])'
}

# One line per /dev/nvidiaN (not nvidiactl, nvidia-uvm): SLURM gives a
# job the GPUs by index, CUDA_VISIBLE_DEVICES=N.
slurm_gres_conf() {
	local f
	for f in $(ls "$1" 2>/dev/null | grep -E '^nvidia[0-9]+$' | sort -V); do
		echo "Name=gpu File=$1/$f"
	done
}

slurm_start() {
	local d=$1 host ports ctl node i gpus= gres= devdir=/dev
	if [ "${2:-}" = --gpus ]; then
		devdir=${3:-/dev}
		mkdir -p "$d" || return 1
		slurm_gres_conf "$devdir" >"$d/gres.conf"
		gpus=$(wc -l <"$d/gres.conf")
		if [ "$gpus" = 0 ]; then
			echo "slurm_start: no GPU device (nvidiaN) in $devdir" >&2
			return 1
		fi
		gres=" Gres=gpu:$gpus"
	fi
	mkdir -p "$d/state" "$d/spool" "$d/log" || return 1
	_slurm_dir=$d
	# munged refuses a key others can read, and a world-writable socket
	# directory without the sticky bit.
	chmod 700 "$d"
	head -c 1024 /dev/urandom >"$d/munge.key" && chmod 600 "$d/munge.key"
	munged -f -S "$d/munge.sock" --key-file="$d/munge.key" \
		--log-file="$d/log/munged.log" --pid-file="$d/munged.pid" \
		--seed-file="$d/munged.seed" || return 1
	host=$(hostname -s)
	read -r ctl node <<<"$(_slurm_ports)"
	cat >"$d/slurm.conf" <<CONF
ClusterName=gpumixtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl
SlurmdPort=$node
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc)$gres State=UNKNOWN
PartitionName=gpumix Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
	[ -n "${GPUMIX_SLURM_PLUGINDIR:-}" ] &&
		echo "PluginDir=$GPUMIX_SLURM_PLUGINDIR" >>"$d/slurm.conf"
	[ -n "$gpus" ] && echo "GresTypes=gpu" >>"$d/slurm.conf"
	# No cgroup plugin is used (proctrack/linuxproc, task/none), so the
	# cluster starts in a container without systemd; this file only says so.
	cat >"$d/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupAutomount=no
ConstrainDevices=no
CONF
	export SLURM_CONF=$d/slurm.conf
	slurmctld -i || return 1
	slurmd -N "$host" ${GPUMIX_SLURMSTEPD:+-d "$GPUMIX_SLURMSTEPD"} || return 1
	for i in $(seq 100); do
		case $(sinfo -h -o %t 2>/dev/null) in idle*) return 0 ;; esac
		sleep 0.1
	done
	echo "slurm_start: the node did not become idle; logs:" >&2
	tail -n 5 "$d"/log/*.log >&2
	return 1
}

_slurm_kill() { # _slurm_kill PIDFILE: stop that daemon and wait for it
	local pid i
	[ -f "$1" ] || return 0
	pid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
}

slurm_stop() {
	[ -n "$_slurm_dir" ] || return 0
	scancel --full --user="$(id -un)" >/dev/null 2>&1
	_slurm_kill "$_slurm_dir/slurmd.pid"
	_slurm_kill "$_slurm_dir/slurmctld.pid"
	_slurm_kill "$_slurm_dir/munged.pid"
	_slurm_dir=
}

slurm_wait_idle() {
	local i n=$(( ${1:-60} * 10 ))
	for i in $(seq "$n"); do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}
