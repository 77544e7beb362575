/* SPDX-License-Identifier: MIT */
/*
 * Names of the event kinds and of their argument words (see record.h).
 */
#include "record.h"

#include <stddef.h>
#include <string.h>

static const char *const kind_names[GM_EV_COUNT] = {
#define GM_EV_NAME_(id, name) #name,
	GM_EVENT_KINDS(GM_EV_NAME_)
#undef GM_EV_NAME_
};

const char *gm_event_kind_name(enum gm_event_kind k)
{
	return (unsigned)k < GM_EV_COUNT ? kind_names[k] : NULL;
}

int gm_event_kind_lookup(const char *name)
{
	for (int i = 0; i < GM_EV_COUNT; i++) {
		if (!strcmp(kind_names[i], name)) {
			return i;
		}
	}
	return -1;
}

#define GM_NAME_(n) #n,
static const char *const act_kernel_names[] = { GM_ACT_KERNEL_ARGS(GM_NAME_) NULL };
static const char *const act_memcpy_names[] = { GM_ACT_MEMCPY_ARGS(GM_NAME_) NULL };
static const char *const act_memset_names[] = { GM_ACT_MEMSET_ARGS(GM_NAME_) NULL };
static const char *const process_names[] = { GM_PROCESS_ARGS(GM_NAME_) NULL };
static const char *const device_names[] = { GM_DEVICE_ARGS(GM_NAME_) NULL };
static const char *const d2h_names[] = { GM_D2H_HASH_ARGS(GM_NAME_) NULL };
static const char *const layout_names[] = { GM_LAYOUT_ARGS(GM_NAME_) NULL };
static const char *const rt_names[] = { GM_RT_ARGS(GM_NAME_) NULL };
static const char *const unsupported_names[] = { GM_UNSUPPORTED_ARGS(GM_NAME_) NULL };
#undef GM_NAME_

const char *const *gm_event_arg_names(enum gm_event_kind k)
{
	switch (k) {
	case GM_EV_ENTER:
	case GM_EV_EXIT:
	case GM_EV_COUNT:
		return NULL;
	case GM_EV_RT_ENTER:
	case GM_EV_RT_EXIT:
		return rt_names;
	case GM_EV_UNSUPPORTED:
		return unsupported_names;
	case GM_EV_D2H_HASH:
		return d2h_names;
	case GM_EV_LAYOUT:
		return layout_names;
	case GM_EV_ACT_KERNEL:
		return act_kernel_names;
	case GM_EV_ACT_MEMCPY:
		return act_memcpy_names;
	case GM_EV_ACT_MEMSET:
		return act_memset_names;
	case GM_EV_PROCESS:
		return process_names;
	case GM_EV_DEVICE:
		return device_names;
	}
	return NULL;
}

/* Kinds that gained words after format 1: how many their first bundles had. */
static const struct {
	enum gm_event_kind kind;
	unsigned words;
} first_words[] = {
	{ GM_EV_LAYOUT, 3 },	/* before `module` */
};

unsigned gm_event_min_words(enum gm_event_kind k)
{
	const char *const *names = gm_event_arg_names(k);
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(first_words) / sizeof(first_words[0]); i++) {
		if (first_words[i].kind == k) {
			return first_words[i].words;
		}
	}
	while (names && names[n]) {
		n++;
	}
	return n;
}
