/* SPDX-License-Identifier: MIT */
/*
 * sad's host side in plain C: the video (a sequence of 8-bit frames), its
 * deterministic generator, edge padding, the -i/-o file formats and the
 * CPU reference of the motion search for one macroblock. Compiled into
 * the program by nvcc and into libparboil-ref.a by gcc for the unit
 * tests.
 *
 * The motion search: for frame f >= 1 (the current frame) against frame
 * f - 1 (the reference), every 16 x 16 macroblock (MB), every search
 * position (dx, dy) in [-16, 16]^2 (1089 positions, p = (dy + 16) * 33 +
 * dx + 16), the sum of absolute differences of each of its sixteen 4 x 4
 * blocks, four 8 x 8 blocks and the whole 16 x 16 block against the
 * reference displaced by (dx, dy) (pixels outside the frame repeat the
 * nearest edge pixel). The result per MB is, for each of those 21 blocks,
 * the best position as a key: sad << 11 | p, minimal (so ties go to the
 * first position in raster order).
 */
#ifndef PB_SAD_REF_H
#define PB_SAD_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_SAD_RANGE 16			/* search range, +-16 pixels */
#define PB_SAD_SPAN (2 * PB_SAD_RANGE + 1)	/* 33 */
#define PB_SAD_POSITIONS (PB_SAD_SPAN * PB_SAD_SPAN)	/* 1089 */
#define PB_SAD_PAD PB_SAD_RANGE		/* padding of the reference frames */
#define PB_SAD_BLOCKS 21		/* 16 4x4 + 4 8x8 + 1 16x16 per MB */
#define PB_SAD_WIDTH 1920		/* frame size at -s 1 */
#define PB_SAD_HEIGHT 1088
#define PB_SAD_PAIRS 96			/* frame pairs at -s 1 */
#define PB_SAD_SAMPLES 48		/* MBs checked per frame pair */

/* @nframes frames of width x height pixels (multiples of 16), row-major. */
struct pb_sad_problem {
	int width, height, nframes;
	uint8_t *frames;
};

/* Key of a block's best match: sad << 11 | position (also used on the GPU). */
#define PB_SAD_KEY(sad, p) ((uint32_t)(sad) << 11 | (uint32_t)(p))

/* MBs per frame. */
int pb_sad_mbs(const struct pb_sad_problem *p);

/*
 * Video size for @scale: 1920 x 1088, 97 frames (96 pairs) at 1; fewer
 * frames down to one pair, then smaller frames. Returns 0, or -1 with a
 * message in @err.
 */
int pb_sad_dims(double scale, int *width, int *height, int *nframes, char *err,
		size_t errlen);

/*
 * Generate the deterministic video (a panning textured background, moving
 * textured objects, noise). pb_sad_release frees.
 */
void pb_sad_generate(struct pb_sad_problem *p, int width, int height,
		     int nframes);

/* Free the frames of @p and zero it. */
void pb_sad_release(struct pb_sad_problem *p);

/*
 * Frame @f with PB_SAD_PAD pixels of edge replication on every side into
 * @out ((width + 32) x (height + 32) bytes).
 */
void pb_sad_pad(const struct pb_sad_problem *p, int f, uint8_t *out);

/*
 * The 21 best-match keys of MB (@mbx, @mby) of frame @f (>= 1) against
 * frame f - 1: sixteen 4x4 blocks in raster order, four 8x8 blocks in
 * raster order, then the 16x16 block.
 */
void pb_sad_mb_ref(const struct pb_sad_problem *p, int f, int mbx, int mby,
		   uint32_t keys[PB_SAD_BLOCKS]);

/*
 * The @count MBs (indices mby * mbw + mbx) checked in frame @f: when
 * count < MBs, the four corners and distinct others drawn by a fixed
 * generator; otherwise every MB (in order, repeated up to count).
 */
void pb_sad_samples(const struct pb_sad_problem *p, int f, int *mbs, int count);

/*
 * Compare the GPU's keys (@keys: [nframes - 1][mbs][21], pair f - 1 for
 * frame f) at @count sampled MBs of every frame with the CPU. Returns the
 * number of differing keys.
 */
long pb_sad_check(const struct pb_sad_problem *p, const uint32_t *keys,
		  int count);

/*
 * Input file (-i): "PBSADIN1", int32 width height nframes, then the
 * frames (uint8, row-major). Write returns 0 or -1; read returns 0, or -1
 * with a message in @err (then @p is empty).
 */
int pb_sad_write_input(const char *path, const struct pb_sad_problem *p);
int pb_sad_read_input(const char *path, struct pb_sad_problem *p, char *err,
		      size_t errlen);

/*
 * Output file (-o): "PBSADOU1", int32 width height pairs, then the keys
 * (uint32, [pairs][mbs][21]). Write returns 0 or -1; read allocates
 * *@keys (caller frees), returns 0 or -1 with a message in @err.
 */
int pb_sad_write_output(const char *path, const struct pb_sad_problem *p,
			const uint32_t *keys);
int pb_sad_read_output(const char *path, int *width, int *height, int *pairs,
		       uint32_t **keys, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
