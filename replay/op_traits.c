/* SPDX-License-Identifier: MIT */
/*
 * The traits of each operation code, from GM_OPS's traits column
 * (gpumix_replay.h): every row gets GM_OPT_KNOWN, so a code the table
 * lacks is seen as unknown (tests/unit/test_op_tables.c).
 */
#include "gpumix_replay.h"
#include "op_traits.h"

static const unsigned char traits[GM_OP_COUNT] = {
#define GM_OP_TRAITS_(name, what, group, traits, operands)                     \
	[GM_OP_##name] = GM_OPT_KNOWN | (traits),
#define GM_OPND_NONE_(field, kind)
	GM_OPS(GM_OP_TRAITS_, GM_OPND_NONE_)
#undef GM_OP_TRAITS_
#undef GM_OPND_NONE_
};

unsigned gm_op_traits(unsigned code)
{
	return code < GM_OP_COUNT ? traits[code] : 0;
}
