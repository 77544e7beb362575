/* SPDX-License-Identifier: MIT */
/*
 * For the knob tests (header-only: a static function for each test that
 * includes it): a study of one program whose `replay:` sets one key.
 */
#ifndef GM_TEST_STUDY_REPLAY_KEY_H
#define GM_TEST_STUDY_REPLAY_KEY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "study/study.h"

/* Load a study whose `replay:` sets @key: @value: 0 or -1, the message
 * in @msg; @s to release. */
static int study_replay_key(const char *key, const char *value,
			    struct study *s, char *msg, size_t len)
{
	char *yaml = gm_xasprintf("programs:\n  - {name: a, command: x}\n"
				  "workloads: [[a]]\nreplay:\n  %s: %s\n", key,
				  value);
	int ret;

	gm_error_clear();
	ret = study_load_string(s, "tests/data/study/mem.yaml", yaml,
				strlen(yaml), NULL);
	snprintf(msg, len, "%s", ret ? gm_error_message() : "");
	gm_error_clear();
	free(yaml);
	return ret;
}

#endif
