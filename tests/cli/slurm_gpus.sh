#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# slurm_start --gpus (tests/slurm_cluster.sh): the gres.conf it writes
# names each nvidiaN of a device directory (not nvidiactl, nvidia-uvm),
# in index order; the real one-node cluster started with it offers
# gres/gpu:N, a job asking for --gres gpu:1 gets one of them
# (CUDA_VISIBLE_DEVICES), one asking for more than there are is refused;
# a directory without GPUs is an error naming it. Here the devices are
# the test's own: character devices (slurmd refuses others) of /dev/zero's
# number where mknod is allowed (root), else empty files, with which
# SLURM still counts the GPU but sets no CUDA_VISIBLE_DEVICES.
. "$GPUMIX_TOP/tests/lib.sh"
. "$GPUMIX_TOP/tests/slurm_cluster.sh"
scratch_dir >/dev/null
tmp=$_scratch
trap 'slurm_stop; rm -rf "$tmp"' EXIT

dev=$tmp/dev
mkdir -p "$dev"
: >"$dev/nvidia0"; : >"$dev/nvidia1"; : >"$dev/nvidia10"
: >"$dev/nvidiactl"; : >"$dev/nvidia-uvm"
check_eq "gres.conf: one line per nvidiaN, in index order" \
	"Name=gpu File=$dev/nvidia0
Name=gpu File=$dev/nvidia1
Name=gpu File=$dev/nvidia10" "$(slurm_gres_conf "$dev")"
check_eq "no GPU device: nothing" "" "$(slurm_gres_conf "$tmp")"
err=$(slurm_start "$tmp/none" --gpus "$tmp" 2>&1)
check_match "--gpus where there is no GPU fails, naming the directory" \
	"no GPU device \(nvidiaN\) in $tmp" "$err"
_slurm_dir=

missing=$(slurm_missing)
if [ -n "$missing" ]; then
	skip "no SLURM cluster can be started here: $missing"
	done_testing
fi
rm "$dev/nvidia10" "$dev/nvidia0" "$dev/nvidia1"
chardev=1
for i in 0 1; do
	mknod "$dev/nvidia$i" c 1 5 2>/dev/null || { : >"$dev/nvidia$i"; chardev=; }
done
if ! slurm_start "$tmp/slurm" --gpus "$dev"; then
	not_ok "the cluster starts with gres/gpu"
	done_testing
fi
ok "the cluster starts with gres/gpu"
check_match "slurm.conf declares the GPUs" "^GresTypes=gpu$" "$(cat "$tmp/slurm/slurm.conf")"
check_match "the node offers gpu:2" "gpu:2" "$(sinfo -h -o %G)"
out=$tmp/job.out
id=$(sbatch --parsable --gres=gpu:1 --output="$out" \
	--wrap='echo "gpus=$SLURM_GPUS_ON_NODE"; echo "gpu=$CUDA_VISIBLE_DEVICES"')
check_match "a job with --gres gpu:1 is accepted" "^[0-9]+$" "$id"
slurm_wait_idle 60
check_match "it ran with one GPU of the node" "^gpus=1$" "$(cat "$out" 2>&1)"
if [ -n "$chardev" ]; then
	check_match "... in CUDA_VISIBLE_DEVICES" "^gpu=[01]$" "$(cat "$out" 2>&1)"
else
	skip "CUDA_VISIBLE_DEVICES: mknod is not allowed here"
fi
err=$(sbatch --parsable --gres=gpu:3 --wrap=true 2>&1)
check_match "a job asking for 3 GPUs of 2 is refused" \
	"Requested node configuration is not available|gres|GRES" "$err"
done_testing
