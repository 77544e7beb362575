/* SPDX-License-Identifier: MIT */
/*
 * Code image inspection (see image.h). The ELF size is the furthest end
 * of the headers and of every section that occupies file space, which is
 * what the driver reads.
 */
#include "image.h"

#include <elf.h>
#include <string.h>

#include "api.h"

/*
 * The headers are copied out before use: the program hands over any
 * address, and an ELF image at one that is not 8-byte aligned is legal
 * input (reading Elf64_Shdr fields in place there is undefined).
 */
static int elf_size(const unsigned char *p, size_t *out)
{
	Elf64_Ehdr eh;
	size_t end = sizeof(eh);

	memcpy(&eh, p, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		return -1;
	}
	if (eh.e_shoff && eh.e_shnum) {
		size_t e = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
		if (eh.e_shentsize != sizeof(Elf64_Shdr) || e > GM_IMAGE_MAX) {
			return -1;
		}
		if (e > end) {
			end = e;
		}
		for (unsigned i = 0; i < eh.e_shnum; i++) {
			Elf64_Shdr sh;
			memcpy(&sh, p + eh.e_shoff + i * sizeof(sh), sizeof(sh));
			if (sh.sh_type == SHT_NOBITS) {
				continue;
			}
			e = sh.sh_offset + sh.sh_size;
			if (e > GM_IMAGE_MAX) {
				return -1;
			}
			if (e > end) {
				end = e;
			}
		}
	}
	if (eh.e_phoff && eh.e_phnum) {
		size_t e = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
		if (e > GM_IMAGE_MAX) {
			return -1;
		}
		if (e > end) {
			end = e;
		}
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
			e = ph.p_offset + ph.p_filesz;
			if (e > GM_IMAGE_MAX) {
				return -1;
			}
			if (e > end) {
				end = e;
			}
		}
	}
	*out = end;
	return 0;
}

static int fatbin_size(const unsigned char *p, size_t *out)
{
	uint16_t hdr;
	uint64_t payload;

	memcpy(&hdr, p + 6, sizeof(hdr));
	memcpy(&payload, p + 8, sizeof(payload));
	if (hdr < 16 || payload > GM_IMAGE_MAX) {
		return -1;
	}
	*out = hdr + (size_t)payload;
	return 0;
}

int gm_image_inspect(const void *p, struct gm_image *img)
{
	const unsigned char *b = p;
	uint32_t magic;

	memset(img, 0, sizeof(*img));
	if (!b) {
		return -1;
	}
	memcpy(&magic, b, sizeof(magic));
	if (magic == GM_FATBIN_WRAPPER_MAGIC) {
		const void *inner;
		memcpy(&inner, b + 8, sizeof(inner));
		if (!inner) {
			return -1;
		}
		b = inner;
		memcpy(&magic, b, sizeof(magic));
		if (magic != GM_FATBIN_MAGIC) {
			return -1;
		}
		img->wrapped = 1;
	}
	img->data = b;
	if (magic == GM_FATBIN_MAGIC) {
		img->kind = GM_IMAGE_FATBIN;
		return fatbin_size(b, &img->size);
	}
	if (!memcmp(b, ELFMAG, SELFMAG)) {
		img->kind = GM_IMAGE_CUBIN;
		return elf_size(b, &img->size);
	}
	img->kind = GM_IMAGE_PTX;
	img->size = strnlen((const char *)b, GM_IMAGE_MAX) + 1;
	return img->size > GM_IMAGE_MAX ? -1 : 0;
}

const char *gm_image_suffix(unsigned kind)
{
	switch (kind) {
	case GM_IMAGE_FATBIN:
		return ".fatbin";
	case GM_IMAGE_CUBIN:
		return ".cubin";
	case GM_IMAGE_PTX:
		return ".ptx";
	case GM_IMAGE_FILE:
		return ".bin";
	}
	return ".bin";
}
