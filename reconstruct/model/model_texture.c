/* SPDX-License-Identifier: MIT */
/*
 * The model's texture objects.
 */
#include "model_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"

#define RES_LINEAR 2			/* CU_RESOURCE_TYPE_LINEAR */
#define RES_PITCH2D 3			/* CU_RESOURCE_TYPE_PITCH2D */
#define RES_ARRAY 0			/* CU_RESOURCE_TYPE_ARRAY */

/* "event 12 (cuMemcpyHtoD_v2): " prefix of every per-call message. */
#define EVF "event %" PRIu64 " (%s): "

/* ---- textures ---- */

int model_add_texture(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t handle, const struct model_texture *t)
{
	struct gm_texture_desc d;
	uint64_t len;
	uint32_t tid;
	struct mop *op;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (t->res_type != RES_LINEAR && t->res_type != RES_PITCH2D &&
	    t->res_type != RES_ARRAY) {
		return gm_error(EVF "texture objects over mipmapped arrays "
				"(resource type %" PRIu32 ") are not "
				"supported", ev, api, t->res_type);
	}
	memset(&d, 0, sizeof(d));
	len = t->res_type == RES_PITCH2D ? t->pitch * t->height : t->size_bytes;
	if (t->res_type == RES_ARRAY) {
		long id = model_array_id(p, t->array);
		if (id < 0) {
			return gm_error(EVF "texture over unknown array 0x%"
					PRIx64, ev, api, t->array);
		}
		d.ref = GM_R((uint32_t)id);
	} else if (model_resolve_device(p, ev, api, "texture memory", t->addr, len,
			       &d.ref, &d.offset) < 0) {
		return -1;
	}
	d.res_type = t->res_type;
	d.format = t->format;
	d.channels = t->channels;
	if (t->res_type == RES_PITCH2D) {
		d.width = t->width;
		d.height = t->height;
		d.pitch = t->pitch;
	} else {
		d.size_bytes = t->size_bytes;
	}
	memcpy(d.address_mode, t->address_mode, sizeof(d.address_mode));
	d.filter_mode = t->filter_mode;
	d.flags = t->flags;
	d.max_anisotropy = t->max_anisotropy;
	d.mipmap_filter_mode = t->mipmap_filter_mode;
	d.mipmap_level_bias = t->mipmap_level_bias;
	d.min_mipmap_level_clamp = t->min_mipmap_level_clamp;
	d.max_mipmap_level_clamp = t->max_mipmap_level_clamp;
	memcpy(d.border_color, t->border_color, sizeof(d.border_color));

	tid = id_pool_get(&p->tex_ids);
	handle_map_put(&p->texture_map, handle, tid);
	op = model_op_add(p, ev, api, GM_OP_TEX_CREATE);
	op->a = tid;
	op->b = gm_strmap_add(&p->texdescs, &d, sizeof(d), NULL);
	return 0;
}

int model_destroy_texture(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t handle)
{
	uint32_t tid;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->texture_map, handle, &tid)) {
		return gm_error(EVF "unknown texture object 0x%" PRIx64, ev,
				api, handle);
	}
	handle_map_del(&p->texture_map, handle);
	id_pool_put(&p->tex_ids, tid);
	model_op_add(p, ev, api, GM_OP_TEX_DESTROY)->a = tid;
	return 0;
}
