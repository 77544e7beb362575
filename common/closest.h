/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the known word closest to a mistyped one, by edit
 * distance. One function for every place that suggests (the study YAML
 * checker's keys and values, gpumix's commands and options).
 */
#ifndef GM_CLOSEST_H
#define GM_CLOSEST_H

/*
 * The entry of @names (NULL-terminated) closest to @word by edit distance
 * (adjacent transpositions count as one edit), or NULL when none is close
 * enough to be a likely typo: at most one edit, or a third of @word.
 */
const char *gm_closest(const char *word, const char *const *names);

#endif
