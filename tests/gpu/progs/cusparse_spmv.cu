// SPDX-License-Identifier: MIT
// A program whose kernels cuSPARSE launches: y = A x for a banded CSR
// matrix through the generic SpMV API (with its workspace), checked
// against the CPU. Prints PASS or FAIL.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>

int main()
{
	const int n = 1 << 16, band = 5;
	std::vector<int> rows(n + 1), cols;
	std::vector<float> vals, x(n), y(n);
	int *drows, *dcols;
	float *dvals, *dx, *dy, one = 1.0f, zero = 0.0f;
	void *work = NULL;
	size_t wsize = 0;
	cusparseHandle_t h;
	cusparseSpMatDescr_t a;
	cusparseDnVecDescr_t vx, vy;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		rows[i] = (int)cols.size();
		for (int j = i - band / 2; j <= i + band / 2; j++) {
			if (j >= 0 && j < n) {
				cols.push_back(j);
				vals.push_back((float)((i + 2 * j) % 7) - 3.0f);
			}
		}
		x[i] = (float)(i % 11) - 5.0f;
	}
	rows[n] = (int)cols.size();
	int nnz = rows[n];
	if (cudaMalloc(&drows, (n + 1) * sizeof(int)) ||
	    cudaMalloc(&dcols, nnz * sizeof(int)) ||
	    cudaMalloc(&dvals, nnz * sizeof(float)) ||
	    cudaMalloc(&dx, n * sizeof(float)) || cudaMalloc(&dy, n * sizeof(float)) ||
	    cudaMemcpy(drows, rows.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice) ||
	    cudaMemcpy(dcols, cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice) ||
	    cudaMemcpy(dvals, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice) ||
	    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice) ||
	    cusparseCreate(&h) ||
	    cusparseCreateCsr(&a, n, n, nnz, drows, dcols, dvals, CUSPARSE_INDEX_32I,
			      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F) ||
	    cusparseCreateDnVec(&vx, n, dx, CUDA_R_32F) ||
	    cusparseCreateDnVec(&vy, n, dy, CUDA_R_32F) ||
	    cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, vx,
				    &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT,
				    &wsize) ||
	    cudaMalloc(&work, wsize ? wsize : 1) ||
	    cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, vx, &zero, vy,
			 CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, work) ||
	    cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "cuda/cusparse call failed\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		float s = 0;
		for (int k = rows[i]; k < rows[i + 1]; k++) {
			s += vals[k] * x[cols[k]];
		}
		bad += fabsf(s - y[i]) > 1e-3f * (1 + fabsf(s));
	}
	cusparseDestroySpMat(a);
	cusparseDestroyDnVec(vx);
	cusparseDestroyDnVec(vy);
	cusparseDestroy(h);
	cudaFree(work);
	printf("%s cusparse_spmv: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
