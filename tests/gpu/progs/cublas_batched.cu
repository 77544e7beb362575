// SPDX-License-Identifier: MIT
// A batched cuBLAS call as programs make it: BATCH small matrices
// allocated one by one, the arrays of their addresses copied into device
// memory, cublasSgemmBatched reading every matrix through them; the
// results checked against the CPU (integer-valued data: exact). The
// device-side pointer arrays are what a replay must keep right (at the
// captured addresses, or patched). Prints PASS or FAIL.
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define BATCH 64
#define M 32

int main()
{
	static float ha[BATCH][M * M], hb[BATCH][M * M], hc[M * M];
	float *da[BATCH], *db[BATCH], *dc[BATCH];
	const float **ta, **tb;
	float **tc;
	float one = 1.0f, zero = 0.0f;
	cublasHandle_t h;
	int bad = 0;

	for (int i = 0; i < BATCH; i++) {
		for (int j = 0; j < M * M; j++) {
			ha[i][j] = (float)((i + j) % 7) - 3.0f;
			hb[i][j] = (float)((2 * i + j) % 5) - 2.0f;
		}
		if (cudaMalloc(&da[i], sizeof(ha[i])) ||
		    cudaMalloc(&db[i], sizeof(hb[i])) ||
		    cudaMalloc(&dc[i], sizeof(hc)) ||
		    cudaMemcpy(da[i], ha[i], sizeof(ha[i]),
			       cudaMemcpyHostToDevice) ||
		    cudaMemcpy(db[i], hb[i], sizeof(hb[i]),
			       cudaMemcpyHostToDevice)) {
			fprintf(stderr, "cuda call failed\n");
			return 2;
		}
	}
	if (cudaMalloc(&ta, sizeof(da)) || cudaMalloc(&tb, sizeof(db)) ||
	    cudaMalloc(&tc, sizeof(dc)) ||
	    cudaMemcpy(ta, da, sizeof(da), cudaMemcpyHostToDevice) ||
	    cudaMemcpy(tb, db, sizeof(db), cudaMemcpyHostToDevice) ||
	    cudaMemcpy(tc, dc, sizeof(dc), cudaMemcpyHostToDevice) ||
	    cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
	    cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, ta,
			       M, tb, M, &zero, tc, M, BATCH) !=
		    CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cuda/cublas call failed\n");
		return 2;
	}
	for (int b = 0; b < BATCH && bad < 10; b++) {
		if (cudaMemcpy(hc, dc[b], sizeof(hc), cudaMemcpyDeviceToHost)) {
			fprintf(stderr, "cuda call failed\n");
			return 2;
		}
		for (int i = 0; i < M; i++) {
			for (int j = 0; j < M; j++) {
				float s = 0;
				for (int k = 0; k < M; k++) {
					s += ha[b][k * M + i] * hb[b][j * M + k];
				}
				bad += s != hc[j * M + i];
			}
		}
	}
	cublasDestroy(h);
	for (int i = 0; i < BATCH; i++) {
		cudaFree(da[i]);
		cudaFree(db[i]);
		cudaFree(dc[i]);
	}
	cudaFree(ta);
	cudaFree(tb);
	cudaFree(tc);
	printf("%s cublas_batched: %d errors (%d matrices)\n",
	       bad ? "FAIL" : "PASS", bad, BATCH);
	return bad ? 1 : 0;
}
