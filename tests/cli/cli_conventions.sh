#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command-line conventions, checked for every command of gpumix's
# command table (cli/commands.c, listed by `gpumix completion options`):
# -h and --help exit 0 and print the command's usage, as `gpumix help CMD`
# does; every option is in --help and in doc/gpumix-CMD.md; a long option
# taking a value takes it after '=' or as the next word (a short one as
# the next word); -q/-v go after the command too; an unknown option is a
# usage error naming the option meant; a mistyped command is too. What
# the parser made of a line is read with GPUMIX_CLI_PARSE_ONLY=1 (cli.h),
# so that no command has to run: a command parsing by hand fails here.
. "$GPUMIX_TOP/tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumix-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Internal options (one stage of a study, one process of a replay): in
# the table, deliberately not in --help nor the pages.
internal=" run:--task replay:--process-child "

"$GPUMIX" completion options >"$tmp/table"
check_eq "completion options lists the table" 0 "$?"
cmds=$(awk '{ print $1 }' "$tmp/table" | uniq)
check_match "... with every command" "^capture .*run .*replay " "$(echo $cmds)"
main_help=$("$GPUMIX" --help)

parse() { # parse CMD ARGS...: what the parser made of them
	GPUMIX_CLI_PARSE_ONLY=1 "$GPUMIX" "$@" 2>&1
}

for c in $cmds; do
	check_match "$c: in gpumix --help" "^   $c " "$main_help"
	for h in -h --help; do
		out=$("$GPUMIX" "$c" $h 2>&1); rc=$?
		check_eq "$c $h exits 0" 0 "$rc"
		check_match "$c $h prints its usage" "^usage: gpumix $c" "$out"
	done
	help=$("$GPUMIX" "$c" --help 2>&1)
	out=$("$GPUMIX" help "$c" 2>&1); rc=$?
	check_eq "gpumix help $c exits 0" 0 "$rc"
	check_eq "gpumix help $c is $c --help" "$help" "$out"
	page=$GPUMIX_TOP/doc/gpumix-$c.md
	case $c in help|version) page=$GPUMIX_TOP/doc/gpumix.md ;; esac
	check "$c: has its page ${page#"$GPUMIX_TOP"/}" test -f "$page"

	# capture and corun run programs: their options end at the first
	# argument, what follows is the program's (global options too).
	case $c in
	capture|corun) out=$(parse "$c" -q --verbose arg1); rc=$? ;;
	*) out=$(parse "$c" -q arg1 --verbose); rc=$? ;;
	esac
	check_eq "$c: -q/--verbose after the command (exit 0)" 0 "$rc"
	check_eq "$c: ... are no arguments" "argument arg1" "$out"

	first_long=
	while read -r cmd opt kind; do
		[ "$cmd" = "$c" ] || continue
		case $opt in -h|-q|-v|--help|--quiet|--verbose) continue ;; esac
		[ -n "$first_long" ] || case $opt in --*) first_long=$opt ;; esac
		if [ "${internal#* $c:$opt }" = "$internal" ]; then
			check_match "$c: $opt in --help" "(^|[^a-z-])$opt([^a-z-]|$)" "$help"
			check_match "$c: $opt in doc/gpumix-$c.md" \
				"(^|[^a-z-])$opt([^a-z-]|$)" "$(cat "$page" 2>/dev/null)"
		fi
		case $kind:$opt in
		value:--*)
			want=$(parse "$c" "$opt" V1)
			want_ok=$?
			check_eq "$c $opt V (exit 0)" 0 "$want_ok"
			check_match "$c $opt V: the option gets V" "^option $opt V1$" "$want"
			out=$(parse "$c" "$opt=V1")
			check_eq "$c $opt=V is $opt V" "$want" "$out"
			out=$(parse "$c" "$opt"); rc=$?
			check_eq "$c $opt without a value: usage error" 2 "$rc"
			check_match "... saying so" "option '$opt' needs a value" "$out"
			;;
		value:-?)
			out=$(parse "$c" "$opt" V1); rc=$?
			check_eq "$c $opt V (exit 0)" 0 "$rc"
			check_match "$c $opt V: the option gets V" "^option (-|--[a-z-]+ )" "$out"
			check_match "... and V" " V1$" "$out"
			;;
		flag:*)
			out=$(parse "$c" "$opt" arg1); rc=$?
			check_eq "$c $opt (exit 0)" 0 "$rc"
			check_match "$c $opt: a flag, the next word an argument" \
				"argument arg1" "$out"
			;;
		esac
	done <"$tmp/table"

	# A typo of an option (one letter more): named, and the option meant.
	meant=${first_long:---help}
	out=$("$GPUMIX" "$c" "${meant}x" 2>&1); rc=$?
	check_eq "$c ${meant}x: usage error" 2 "$rc"
	check_match "... did you mean $meant" \
		"^error: unknown option '${meant}x' \(did you mean '$meant'\?\)" "$out"
	check_match "... and the usage" "^usage: gpumix $c" "$out"
done

out=$("$GPUMIX" reconstrcut 2>&1); rc=$?
check_eq "a mistyped command: usage error" 2 "$rc"
check_match "... did you mean" "'reconstrcut' is not a gpumix command \(did you mean 'reconstruct'\?\)" "$out"
out=$("$GPUMIX" help reconstrcut 2>&1); rc=$?
check_eq "help of a mistyped command: usage error" 2 "$rc"
check_match "... did you mean" "did you mean 'reconstruct'" "$out"
out=$("$GPUMIX" --verbsoe version 2>&1); rc=$?
check_eq "a mistyped global option: usage error" 2 "$rc"
check_match "... did you mean" "did you mean '--verbose'" "$out"
out=$("$GPUMIX" trace expotr x 2>&1); rc=$?
check_match "a mistyped trace subcommand: did you mean" "did you mean 'export'" "$out"

# Completion: every command, and one option of each, from the same table.
"$GPUMIX" completion bash >"$tmp/gpumix.bash"
check_eq "completion bash exits 0" 0 "$?"
check "the script is valid bash" bash -n "$tmp/gpumix.bash"
complete_words() { # complete_words WORD...: what bash offers for the last
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		 _gpumix; printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/gpumix.bash" "$@"
}
top=$(complete_words gpumix "")
for c in $cmds; do
	check_match "completion offers $c" "^$c$" "$top"
	opt=$(awk -v c="$c" '$1 == c && $2 ~ /^--/ && $2 != "--help" &&
		$2 != "--quiet" && $2 != "--verbose" { print $2; exit }' "$tmp/table")
	opt=${opt:---help}
	check_match "completion offers $c $opt" "^$opt$" \
		"$(complete_words gpumix "$c" "${opt:0:4}")"
done
check_match "completion offers trace's subcommands" "^export$" \
	"$(complete_words gpumix trace "")"
check_match "... files after an option taking one" "gpumix.bash" \
	"$(cd "$tmp" && complete_words gpumix report -o gpu)"
done_testing
