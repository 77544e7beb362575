/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the fatbin reader (reconstruct/ptx/fatbin.c), given a fatbin,
 * an ELF file with a .nv_fatbin section or anything else, as gpumix
 * elastic and reconstruct are: find the fatbins, list their entries,
 * decompress every payload (LZ4 and ZSTD) and pick the PTX.
 */
#include "error.h"
#include "harness.h"
#include "reconstruct/ptx/fatbin.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gm_fatbin f;
	struct strbuf sb = STRBUF_INIT;

	if (!gm_fatbin_from_image(data, size, &f)) {
		for (size_t i = 0; i < f.nr; i++) {
			strbuf_reset(&sb);
			gm_fatbin_entry_data(&f.entries[i], &sb);
		}
		gm_fatbin_pick_ptx(&f, 90);
	}
	gm_fatbin_release(&f);
	gm_error_clear();
	if (!gm_fatbin_parse(data, size, &f)) {
		gm_fatbin_pick_ptx(&f, 52);
	}
	gm_fatbin_release(&f);
	gm_error_clear();
	strbuf_release(&sb);
	return 0;
}
