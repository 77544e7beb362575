// SPDX-License-Identifier: MIT
// Host functions and stream-ordered memory pools, used the way pipelined
// programs use them: a memory pool with a release threshold (and the
// device's default pool told to keep its memory), then per round, on one
// stream: an input from the pool (cudaMallocFromPoolAsync) and an output
// from the default pool (cudaMallocAsync), the input copied in, a kernel,
// a second kernel, the result copied back to one pinned staging buffer,
// a host function (cudaLaunchHostFunc) that takes the round's result out
// of the staging buffer (which the next round's copy reuses) and checks
// it, a stream callback (cudaStreamAddCallback) every other round, and
// both buffers freed in stream order (cudaFreeAsync); the pool is
// trimmed at the end. The host functions must run in stream order after
// the copy before them and before the next one. Prints
// "PASS hostfunc_pools" when every result and every host function's view
// of them is right.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 20)
#define ROUNDS 8

__global__ void scale(float *in, unsigned n, unsigned round)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		in[i] = in[i] * 2.0f + (float)round;
	}
}

__global__ void plus_one(float *out, const float *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = in[i] + 1.0f;
	}
}

static float expect(unsigned i, unsigned round)
{
	return (float)(i % 1000) * 2.0f + (float)round + 1.0f;
}

// What the host functions saw.
struct log {
	const float *stage;		// pinned: the round's result lands here
	float *out;			// taken out of it, N per round
	unsigned next_round;		// rounds checked, in order
	unsigned bad, out_of_order;
	unsigned callbacks, callback_errors;
};

struct round_arg {
	struct log *log;
	unsigned round;
};

// The program's host work: take the round's result out of the staging
// buffer before the next round's copy overwrites it, and check it.
static void CUDART_CB check_round(void *p)
{
	const struct round_arg *a = (const struct round_arg *)p;
	struct log *l = a->log;
	float *r = l->out + (size_t)a->round * N;

	memcpy(r, l->stage, N * sizeof(float));
	if (a->round != l->next_round) {
		l->out_of_order++;
	}
	l->next_round = a->round + 1;
	for (unsigned i = 0; i < N; i++) {
		l->bad += r[i] != expect(i, a->round);
	}
}

static void CUDART_CB count_callback(cudaStream_t s, cudaError_t status,
				     void *p)
{
	struct log *l = (struct log *)p;

	(void)s;
	l->callbacks++;
	l->callback_errors += status != cudaSuccess;
}

int main()
{
	cudaMemPool_t pool, def;
	cudaMemPoolProps props;
	cudaStream_t s;
	float *h_in, *stage, *h_out;
	uint64_t threshold = 64ull << 20, keep = UINT64_MAX;
	static struct round_arg args[ROUNDS];
	struct log log;
	unsigned bad = 0;

	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) ||
	    cudaMemPoolCreate(&pool, &props) ||
	    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
				    &threshold) ||
	    cudaDeviceGetDefaultMemPool(&def, 0) ||
	    cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold,
				    &keep) ||
	    cudaMallocHost(&h_in, N * sizeof(float)) ||
	    cudaMallocHost(&stage, N * sizeof(float)) ||
	    !(h_out = new float[(size_t)ROUNDS * N])) {
		printf("FAIL hostfunc_pools: setup\n");
		return 1;
	}
	for (unsigned i = 0; i < N; i++) {
		h_in[i] = (float)(i % 1000);
	}
	memset(&log, 0, sizeof(log));
	log.stage = stage;
	log.out = h_out;
	for (unsigned round = 0; round < ROUNDS; round++) {
		float *in, *out;
		if (cudaMallocFromPoolAsync(&in, N * sizeof(float), pool, s) ||
		    cudaMallocAsync(&out, N * sizeof(float), s)) {
			printf("FAIL hostfunc_pools: allocation\n");
			return 1;
		}
		cudaMemcpyAsync(in, h_in, N * sizeof(float),
				cudaMemcpyHostToDevice, s);
		scale<<<N / 256, 256, 0, s>>>(in, N, round);
		plus_one<<<N / 256, 256, 0, s>>>(out, in, N);
		cudaMemcpyAsync(stage, out, N * sizeof(float),
				cudaMemcpyDeviceToHost, s);
		args[round].log = &log;
		args[round].round = round;
		cudaLaunchHostFunc(s, check_round, &args[round]);
		if (round % 2) {
			cudaStreamAddCallback(s, count_callback, &log, 0);
		}
		cudaFreeAsync(in, s);
		cudaFreeAsync(out, s);
	}
	cudaStreamSynchronize(s);
	cudaMemPoolTrimTo(pool, 0);
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned i = 0; i < N; i++) {
			bad += h_out[(size_t)round * N + i] != expect(i, round);
		}
	}
	cudaStreamDestroy(s);
	cudaMemPoolDestroy(pool);
	cudaFreeHost(h_in);
	cudaFreeHost(stage);
	delete[] h_out;
	if (bad || log.bad || log.out_of_order || log.next_round != ROUNDS ||
	    log.callbacks != ROUNDS / 2 || log.callback_errors ||
	    cudaGetLastError()) {
		printf("FAIL hostfunc_pools: %u wrong results, host functions: "
		       "%u wrong, %u out of order, %u of %u rounds, %u "
		       "callbacks (%u errors)\n", bad, log.bad,
		       log.out_of_order, log.next_round, ROUNDS, log.callbacks,
		       log.callback_errors);
		return 1;
	}
	printf("PASS hostfunc_pools\n");
	return 0;
}
