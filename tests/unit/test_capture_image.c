/* SPDX-License-Identifier: MIT */
/*
 * Code image inspection: a fatbin wrapper leads to its fatbin, fatbin and
 * ELF sizes come from their headers, PTX is text up to its NUL, and
 * malformed images are refused.
 */
#include <stdlib.h>

#include "api.h"
#include "image.h"
#include "test.h"

int main(void)
{
	uint8_t fat[64 + 16] = { 0 }, wrap[24] = { 0 }, elf[512] = { 0 };
	uint32_t m = GM_FATBIN_MAGIC, wm = GM_FATBIN_WRAPPER_MAGIC;
	uint16_t hdr = 16;
	uint64_t payload = 64, huge = (uint64_t)1 << 40;
	struct gm_image img;
	const void *p = fat;
	static const char ptx[] = ".version 8.0\n.target sm_90\n";

	memcpy(fat, &m, 4);
	memcpy(fat + 6, &hdr, 2);
	memcpy(fat + 8, &payload, 8);
	CHECK_INT(gm_image_inspect(fat, &img), 0, "a fatbin is recognised");
	CHECK_INT(img.kind, GM_IMAGE_FATBIN, "fatbin kind");
	CHECK_INT(img.size, 80, "fatbin size = header + payload");
	CHECK(img.data == fat && !img.wrapped, "fatbin data starts at its header");

	memcpy(wrap, &wm, 4);
	memcpy(wrap + 8, &p, sizeof(p));
	CHECK_INT(gm_image_inspect(wrap, &img), 0, "a fatbin wrapper is followed");
	CHECK(img.data == fat && img.wrapped && img.size == 80,
	      "the wrapper's fatbin is what is stored");

	memset(wrap + 8, 0, 8);
	CHECK_INT(gm_image_inspect(wrap, &img), -1, "a wrapper without fatbin is refused");

	memcpy(fat + 8, &huge, 8);
	CHECK_INT(gm_image_inspect(fat, &img), -1, "an absurd fatbin size is refused");

	memcpy(elf, "\177ELF", 4);
	elf[4] = 2;
	{
		uint64_t shoff = 300, off = 64, size = 100;
		uint16_t shentsize = 64, shnum = 2;
		uint32_t progbits = 1;
		memcpy(elf + 0x28, &shoff, 8);
		memcpy(elf + 0x3a, &shentsize, 2);
		memcpy(elf + 0x3c, &shnum, 2);
		memcpy(elf + 300 + 64 + 4, &progbits, 4);
		memcpy(elf + 300 + 64 + 0x18, &off, 8);
		memcpy(elf + 300 + 64 + 0x20, &size, 8);
	}
	CHECK_INT(gm_image_inspect(elf, &img), 0, "an ELF cubin is recognised");
	CHECK_INT(img.kind, GM_IMAGE_CUBIN, "cubin kind");
	CHECK_INT(img.size, 300 + 2 * 64, "cubin size = end of section headers");
	elf[4] = 1;
	CHECK_INT(gm_image_inspect(elf, &img), -1, "a 32-bit ELF is refused");

	CHECK_INT(gm_image_inspect(ptx, &img), 0, "PTX text is recognised");
	CHECK_INT(img.kind, GM_IMAGE_PTX, "ptx kind");
	CHECK_INT(img.size, sizeof(ptx), "PTX size includes its NUL");

	CHECK_INT(gm_image_inspect(NULL, &img), -1, "NULL is refused");
	CHECK_STR(gm_image_suffix(GM_IMAGE_FATBIN), ".fatbin", "fatbin suffix");
	CHECK_STR(gm_image_suffix(GM_IMAGE_FILE), ".bin", "file suffix");
	return test_done();
}
