/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the policy table (common/policies.h): one row per value
 * of enum gm_policy, in its order, the names both ways through the
 * replay runtime's gm_policy_name() and gm_policy_parse(), the selectable
 * ones (every policy but LEFTOVER) in the lists that messages, --policy
 * and a study's `policies:` take, and report labels in the table's order.
 */
#include <string.h>

#include "policies.h"
#include "replay/policy.h"
#include "test.h"
#include "variant.h"

int main(void)
{
	const char *const *names = gm_policy_names();
	size_t n = 0, sel = 0;
	enum gm_policy p;

	for (size_t i = 0; gm_policy_at(i); i++) {
		const struct gm_policy_desc *d = gm_policy_at(i);
		char what[128];
		snprintf(what, sizeof(what), "policy row %zu (%s) is enum value %zu",
			 i, d->name, i);
		CHECK_INT(d->policy, i, what);
		CHECK_STR(gm_policy_name(d->policy), d->name,
			  "  gm_policy_name() gives its name");
		CHECK(!gm_policy_parse(d->name, &p) && p == d->policy,
		      "  and gm_policy_parse() its value");
		CHECK(gm_policy_desc_find(d->name) == d, "  found by name");
		CHECK(d->about && *d->about, "  it says what it does");
		for (size_t j = 0; j < i; j++) {
			CHECK(strcmp(gm_policy_at(j)->name, d->name),
			      "  its name is no other row's");
		}
		if (d->selectable) {
			CHECK_STR(names[sel], d->name,
				  "  selectable: in gm_policy_names(), in order");
			CHECK(gm_policy_find(d->name) == d->name,
			      "  ... and gm_policy_find() finds it");
			sel++;
		} else {
			CHECK(!gm_policy_find(d->name),
			      "  not selectable: no --policy takes it");
		}
		n++;
	}
	CHECK_INT(n, GM_NR_POLICIES, "one row per enum gm_policy value");
	CHECK(names[sel] == NULL, "gm_policy_names() has the selectable rows only");
	CHECK_INT(gm_policy_at(GM_POLICY_LEFTOVER)->selectable, 0,
		  "LEFTOVER is no one's choice");
	CHECK(!gm_policy_parse("none", &p) && p == GM_POLICY_LEFTOVER,
	      "'none' (run directories) is LEFTOVER");
	CHECK(gm_policy_parse("fair", &p) < 0, "an unknown name is an error");
	CHECK_STR(gm_policy_list(), "median, mpmax, equal, queuemold, mpmax-cliff",
		  "the list messages give");
	CHECK_STR(gm_policy_defaults()[3], "queuemold",
		  "a study's default policies: the paper's four ...");
	CHECK(gm_policy_defaults()[4] == NULL,
	      "... not mpmax-cliff, which needs a cliff map");
	CHECK(gm_variant_rank("elastic") < gm_variant_rank("elastic+median") &&
	      gm_variant_rank("elastic+median") < gm_variant_rank("elastic+mpmax") &&
	      gm_variant_rank("elastic+mpmax") < gm_variant_rank("elastic+equal") &&
	      gm_variant_rank("elastic+equal") < gm_variant_rank("elastic+queuemold") &&
	      gm_variant_rank("elastic+queuemold") < gm_variant_rank("priority"),
	      "report labels sort in the table's order");
	return test_done();
}
