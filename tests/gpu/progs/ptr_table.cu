// SPDX-License-Identifier: MIT
// Device pointers stored in device memory, the way real programs store
// them: BATCH matrices allocated one by one, the arrays of their
// addresses copied from the host into device memory (what a program does
// for cublasSgemmBatched), and a batched multiply that finds each matrix
// through those tables; then a linked list built on the host across four
// allocations (each node's next a device address) and a kernel walking
// it. A replay that neither keeps the captured addresses nor patches the
// copied words faults (CUDA_ERROR_ILLEGAL_ADDRESS) or reads wrong data.
// Integer-valued data, so that every sum is exact. Prints
// "PASS ptr_table".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BATCH 32
#define M 64		// each matrix M x M floats
#define CHUNKS 4
#define PER_CHUNK 256	// list nodes per allocation

struct node {
	unsigned long long next;	// device address of the next, or 0
	int value;
	int pad;
};

__global__ void batched_mm(const float *const *a, const float *const *b,
			   float *const *c, int m)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	const float *x = a[blockIdx.z], *y = b[blockIdx.z];
	float s = 0;

	for (int k = 0; k < m; k++) {
		s += x[row * m + k] * y[k * m + col];
	}
	c[blockIdx.z][row * m + col] = s;
}

__global__ void walk(const node *head, long long *out)
{
	long long sum = 0, n = 0;

	for (const node *p = head; p; p = (const node *)p->next) {
		sum += p->value;
		n++;
	}
	out[0] = sum;
	out[1] = n;
}

#define CHECK(call)                                                           \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			fprintf(stderr, "%s: %s\n", #call,                    \
				cudaGetErrorString(e_));                      \
			return 2;                                             \
		}                                                             \
	} while (0)

int main()
{
	static float ha[BATCH][M * M], hb[BATCH][M * M], hc[M * M];
	float *da[BATCH], *db[BATCH], *dc[BATCH];
	float **ta, **tb, **tc;
	static node hn[CHUNKS][PER_CHUNK];
	node *chunk[CHUNKS];
	long long *dout, out[2], want_sum = 0;
	int bad = 0;

	for (int i = 0; i < BATCH; i++) {
		for (int j = 0; j < M * M; j++) {
			ha[i][j] = (float)((i + j) % 7) - 3.0f;
			hb[i][j] = (float)((i * 3 + j) % 5) - 2.0f;
		}
		CHECK(cudaMalloc(&da[i], sizeof(ha[i])));
		CHECK(cudaMalloc(&db[i], sizeof(hb[i])));
		CHECK(cudaMalloc(&dc[i], sizeof(hc)));
		CHECK(cudaMemcpy(da[i], ha[i], sizeof(ha[i]),
				 cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(db[i], hb[i], sizeof(hb[i]),
				 cudaMemcpyHostToDevice));
	}
	// The pointer arrays, as cublasSgemmBatched wants them: in device
	// memory, copied from the host.
	CHECK(cudaMalloc(&ta, sizeof(da)));
	CHECK(cudaMalloc(&tb, sizeof(db)));
	CHECK(cudaMalloc(&tc, sizeof(dc)));
	CHECK(cudaMemcpy(ta, da, sizeof(da), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(tb, db, sizeof(db), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(tc, dc, sizeof(dc), cudaMemcpyHostToDevice));
	batched_mm<<<dim3(M / 16, M / 16, BATCH), dim3(16, 16)>>>(ta, tb, tc, M);
	CHECK(cudaGetLastError());
	for (int i = 0; i < BATCH; i++) {
		CHECK(cudaMemcpy(hc, dc[i], sizeof(hc), cudaMemcpyDeviceToHost));
		for (int r = 0; r < M && bad < 10; r++) {
			for (int c = 0; c < M; c++) {
				float s = 0;
				for (int k = 0; k < M; k++) {
					s += ha[i][r * M + k] * hb[i][k * M + c];
				}
				bad += s != hc[r * M + c];
			}
		}
	}

	// A linked list whose nodes lie in four allocations, visited in an
	// order that jumps between them.
	for (int k = 0; k < CHUNKS; k++) {
		CHECK(cudaMalloc(&chunk[k], sizeof(hn[k])));
	}
	for (int i = 0; i < CHUNKS * PER_CHUNK; i++) {
		int k = i % CHUNKS, j = i / CHUNKS, nk = (i + 1) % CHUNKS,
		    nj = (i + 1) / CHUNKS;
		hn[k][j].value = i * 3 + 1;
		hn[k][j].next = i + 1 < CHUNKS * PER_CHUNK ?
			(unsigned long long)(uintptr_t)&chunk[nk][nj] : 0;
		want_sum += i * 3 + 1;
	}
	for (int k = 0; k < CHUNKS; k++) {
		CHECK(cudaMemcpy(chunk[k], hn[k], sizeof(hn[k]),
				 cudaMemcpyHostToDevice));
	}
	CHECK(cudaMalloc(&dout, sizeof(out)));
	walk<<<1, 1>>>(chunk[0], dout);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	bad += out[0] != want_sum || out[1] != CHUNKS * PER_CHUNK;

	for (int i = 0; i < BATCH; i++) {
		cudaFree(da[i]);
		cudaFree(db[i]);
		cudaFree(dc[i]);
	}
	for (int k = 0; k < CHUNKS; k++) {
		cudaFree(chunk[k]);
	}
	cudaFree(ta);
	cudaFree(tb);
	cudaFree(tc);
	cudaFree(dout);
	printf("%s ptr_table: %d errors (%d matrices, %d list nodes)\n",
	       bad ? "FAIL" : "PASS", bad, BATCH, CHUNKS * PER_CHUNK);
	return bad ? 1 : 0;
}
