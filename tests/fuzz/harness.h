/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz harnesses share (tests/fuzz/fuzz_*.c). Each harness
 * defines LLVMFuzzerTestOneInput() for one parser of user input; it is
 * linked either with libFuzzer (make fuzz) or with driver.c, a plain
 * main() that feeds it the committed corpus and regression inputs (make
 * check). A harness must leave no state behind between inputs (the error
 * stack cleared, everything released), so that a crash reproduces from
 * its one input.
 *
 * Inputs that stand for several files (a run directory, a bundle) hold
 * them one after another, separated by FUZZ_SEP.
 */
#ifndef GM_FUZZ_HARNESS_H
#define GM_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_SEP "\n==gpumix-fuzz-file==\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Split @data at FUZZ_SEP into at most @max parts: @part[i] and @len[i];
 * parts past the last separator are NULL (the file is absent). Returns
 * the number of parts found.
 */
size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **part,
		  size_t *len, size_t max);

/*
 * A scratch directory for this process, made once (under $TMPDIR) and
 * removed at exit; its contents are the harness's to replace per input.
 */
const char *fuzz_scratch(void);

/*
 * Write @len bytes to @dir/@name, or remove it when @data is NULL. Aborts
 * on a failure of the scratch file system itself (not an input's fault).
 */
void fuzz_put(const char *dir, const char *name, const uint8_t *data,
	      size_t len);

#endif
