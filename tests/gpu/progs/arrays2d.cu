// SPDX-License-Identifier: MIT
// 2-D and 3-D copies and CUDA arrays as image programs and cuBLAS-XT use
// them (written here), with the runtime API:
//   - an image in a CUDA array (cudaMallocArray) filled from page-locked
//     host memory (cudaMemcpy2DToArrayAsync), blurred by a kernel reading
//     it through a texture object over the array (tex2D, clamped, point
//     sampling) into pitched memory (cudaMallocPitch), a tile of the
//     result copied out (cudaMemcpy2DAsync, a position and a pitch) and
//     the whole into pageable host memory (cudaMemcpy2D);
//   - tiles of a matrix moved between pitched device buffers and the host
//     in a loop (cudaMemcpy2DAsync on two streams, as cuBLAS-XT's tiling
//     does);
//   - a volume in a 3-D array (cudaMalloc3DArray) written by cudaMemcpy3D
//     and a slice read back; a 1-row copy across arrays
//     (cudaMemcpy2DArrayToArray);
//   - the arrays freed (cudaFreeArray) and one made again.
// Every result is checked against a CPU reference. Prints "PASS arrays2d".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define W 256
#define H 128

__global__ void blur(cudaTextureObject_t t, float *out, size_t pitch, int w,
		     int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h) {
		float s = tex2D<float>(t, x, y) + tex2D<float>(t, x - 1, y) +
			  tex2D<float>(t, x + 1, y) + tex2D<float>(t, x, y - 1) +
			  tex2D<float>(t, x, y + 1);
		((float *)((char *)out + y * pitch))[x] = s;
	}
}

__global__ void scale_tile(float *m, size_t pitch, int w, int h, float f)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h) {
		((float *)((char *)m + y * pitch))[x] *= f;
	}
}

#define CK(x)                                                                  \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			printf("FAIL arrays2d: %s: %s\n", #x,                  \
			       cudaGetErrorString(e_));                        \
			return 1;                                              \
		}                                                              \
	} while (0)

static float img_at(const float *img, int x, int y)
{
	x = x < 0 ? 0 : x >= W ? W - 1 : x;
	y = y < 0 ? 0 : y >= H ? H - 1 : y;
	return img[y * W + x];
}

static cudaTextureObject_t texture_of(cudaArray_t a)
{
	cudaResourceDesc rd;
	cudaTextureDesc td;
	cudaTextureObject_t t = 0;
	memset(&rd, 0, sizeof(rd));
	memset(&td, 0, sizeof(td));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
	td.filterMode = cudaFilterModePoint;
	td.readMode = cudaReadModeElementType;
	if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaSuccess) {
		return 0;
	}
	return t;
}

/* One image through the array, the texture and the blur; 0 when right. */
static int blur_image(cudaArray_t a, float *img, float *dout, size_t dpitch,
		      float *out, cudaStream_t s)
{
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	cudaTextureObject_t t;
	long bad = 0;

	(void)cf;
	CK(cudaMemcpy2DToArrayAsync(a, 0, 0, img, W * sizeof(float),
				    W * sizeof(float), H,
				    cudaMemcpyHostToDevice, s));
	t = texture_of(a);
	if (!t) {
		printf("FAIL arrays2d: texture object\n");
		return 1;
	}
	blur<<<dim3(W / 16, H / 16), dim3(16, 16), 0, s>>>(t, dout, dpitch, W,
							   H);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(s));
	CK(cudaMemcpy2D(out, W * sizeof(float), dout, dpitch,
			W * sizeof(float), H, cudaMemcpyDeviceToHost));
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			float want = img_at(img, x, y) + img_at(img, x - 1, y) +
				     img_at(img, x + 1, y) +
				     img_at(img, x, y - 1) +
				     img_at(img, x, y + 1);
			bad += out[y * W + x] != want;
		}
	}
	CK(cudaDestroyTextureObject(t));
	return bad != 0;
}

int main()
{
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	cudaArray_t a, a2, vol, row;
	cudaStream_t s[2];
	float *img, *out, *dout, *tiles[2], tile_h[32][64];
	size_t dpitch, tpitch;
	int bad = 0;

	CK(cudaMallocHost(&img, W * H * sizeof(float)));
	out = new float[W * H];
	for (int i = 0; i < W * H; i++) {
		img[i] = (float)(i % 97);
	}
	CK(cudaStreamCreate(&s[0]));
	CK(cudaStreamCreate(&s[1]));
	CK(cudaMallocPitch(&dout, &dpitch, W * sizeof(float), H));
	CK(cudaMallocArray(&a, &cf, W, H));
	bad += blur_image(a, img, dout, dpitch, out, s[0]);

	// a tile of the result: 64 x 32 floats at (32, 16)
	{
		float tile[32][64];
		CK(cudaMemcpy2DAsync(tile, sizeof(tile[0]),
				     (char *)dout + 16 * dpitch + 32 * sizeof(float),
				     dpitch, sizeof(tile[0]), 32,
				     cudaMemcpyDeviceToHost, s[1]));
		CK(cudaStreamSynchronize(s[1]));
		for (int y = 0; y < 32; y++) {
			for (int x = 0; x < 64; x++) {
				bad += tile[y][x] != out[(16 + y) * W + 32 + x];
			}
		}
	}

	// cuBLAS-XT-like tiles: host rows in and out of pitched buffers
	for (int k = 0; k < 2; k++) {
		CK(cudaMallocPitch(&tiles[k], &tpitch, 64 * sizeof(float), 32));
	}
	for (int it = 0; it < 4; it++) {
		int k = it % 2;
		CK(cudaMemcpy2DAsync(tiles[k], tpitch,
				     img + (it * 32) * W + it * 16,
				     W * sizeof(float), 64 * sizeof(float), 32,
				     cudaMemcpyHostToDevice, s[k]));
		scale_tile<<<dim3(4, 2), dim3(16, 16), 0, s[k]>>>(tiles[k],
								  tpitch, 64,
								  32, 2.0f);
		CK(cudaMemcpy2DAsync(tile_h, sizeof(tile_h[0]), tiles[k],
				     tpitch, 64 * sizeof(float), 32,
				     cudaMemcpyDeviceToHost, s[k]));
		CK(cudaStreamSynchronize(s[k]));
		for (int y = 0; y < 32; y++) {
			for (int x = 0; x < 64; x++) {
				bad += tile_h[y][x] !=
				       2.0f * img[(it * 32 + y) * W + it * 16 + x];
			}
		}
	}

	// a volume
	{
		cudaExtent ext = make_cudaExtent(32, 16, 4);
		cudaMemcpy3DParms p;
		static float v[4][16][32], slice[16][32];
		for (int i = 0; i < 4 * 16 * 32; i++) {
			(&v[0][0][0])[i] = (float)i;
		}
		CK(cudaMalloc3DArray(&vol, &cf, ext));
		memset(&p, 0, sizeof(p));
		p.srcPtr = make_cudaPitchedPtr(v, 32 * sizeof(float), 32, 16);
		p.dstArray = vol;
		p.extent = ext;
		p.kind = cudaMemcpyHostToDevice;
		CK(cudaMemcpy3D(&p));
		memset(&p, 0, sizeof(p));
		p.srcArray = vol;
		p.srcPos = make_cudaPos(0, 0, 2);
		p.dstPtr = make_cudaPitchedPtr(slice, 32 * sizeof(float), 32,
					       16);
		p.extent = make_cudaExtent(32, 16, 1);
		p.kind = cudaMemcpyDeviceToHost;
		CK(cudaMemcpy3D(&p));
		for (int i = 0; i < 16 * 32; i++) {
			bad += (&slice[0][0])[i] != 2 * 16 * 32 + i;
		}
	}
	// a row across arrays
	{
		float r[W];
		CK(cudaMallocArray(&row, &cf, W, 1));
		CK(cudaMemcpy2DArrayToArray(row, 0, 0, a, 0, 5,
					    W * sizeof(float), 1,
					    cudaMemcpyDeviceToDevice));
		CK(cudaMemcpy2DFromArray(r, sizeof(r), row, 0, 0, sizeof(r), 1,
					 cudaMemcpyDeviceToHost));
		for (int x = 0; x < W; x++) {
			bad += r[x] != img[5 * W + x];
		}
	}

	CK(cudaFreeArray(row));
	CK(cudaFreeArray(vol));
	CK(cudaFreeArray(a));
	// one of the same kind again, another image
	for (int i = 0; i < W * H; i++) {
		img[i] = (float)((i * 7) % 101);
	}
	CK(cudaMallocArray(&a2, &cf, W, H));
	bad += blur_image(a2, img, dout, dpitch, out, s[0]);
	CK(cudaFreeArray(a2));
	CK(cudaDeviceSynchronize());
	if (bad) {
		printf("FAIL arrays2d: %d wrong values\n", bad);
		return 1;
	}
	printf("PASS arrays2d\n");
	return 0;
}
