# SPDX-License-Identifier: MIT
#
# The real-library set (issue: capture what real programs use): programs
# whose kernels a CUDA library launches, and a CUDA graph program with
# host nodes (the samples' pattern), written here, one line each:
# NAME|COMMAND (from the repository root)|REQUIREMENT (a command that
# succeeds when the program can run here; empty: always). Sourced by
# tests/gpu/real_libraries.sh and bench/real_libraries.sh; not a test.
LIBRARY_PROGRAMS=(
	"cublas_sgemm|$GPUMIX_BUILD/tests/gpu/progs/cublas_sgemm|"
	"cublas_batched|$GPUMIX_BUILD/tests/gpu/progs/cublas_batched|"
	"cufft_c2c|$GPUMIX_BUILD/tests/gpu/progs/cufft_c2c|"
	"curand_gen|$GPUMIX_BUILD/tests/gpu/progs/curand_gen|"
	"cusparse_spmv|$GPUMIX_BUILD/tests/gpu/progs/cusparse_spmv|"
	"torch_train|python3 tests/gpu/progs/torch_train.py|python3 -c 'import torch; assert torch.cuda.is_available()'"
	"torch_infer|python3 tests/gpu/progs/torch_infer.py|python3 -c 'import torch; assert torch.cuda.is_available()'"
	"torch_generate|python3 tests/gpu/progs/torch_generate.py|python3 -c 'import torch; assert torch.cuda.is_available()'"
	"cupy_raw|python3 tests/gpu/progs/cupy_raw.py|python3 -c 'import cupy'"
	"cupy_fft|python3 tests/gpu/progs/cupy_fft.py|python3 -c 'import cupy'"
	"jax_train|python3 tests/gpu/progs/jax_train.py|python3 -c 'import jax; assert any(d.platform == \"gpu\" for d in jax.devices())'"
	"graph_host|$GPUMIX_BUILD/tests/gpu/progs/graph_host|"
)

# GPUMIX_LIBRARIES="jax_train cufft_c2c" keeps only those (a GPU run that
# checks one program; the corun pairs look their programs up here too)
if [ -n "${GPUMIX_LIBRARIES:-}" ]; then
	_kept=()
	for _l in "${LIBRARY_PROGRAMS[@]}"; do
		case " $GPUMIX_LIBRARIES " in
		*" ${_l%%|*} "*) _kept+=("$_l") ;;
		esac
	done
	LIBRARY_PROGRAMS=("${_kept[@]}")
	unset _kept _l
fi

# library_fields LINE: sets $lib_name, $lib_cmd, $lib_req
library_fields() {
	lib_name=${1%%|*}
	local rest=${1#*|}
	lib_cmd=${rest%%|*}
	lib_req=${rest#*|}
}
