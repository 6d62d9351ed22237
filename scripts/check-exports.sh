#!/usr/bin/env bash
# The ABI of libzcnic.so is core/libzcnic.map, a decision written by hand.
# This script checks that three lists are one and the same:
#   the map            core/libzcnic.map (global: names, version ZCNIC_0.1)
#   the exports        nm -D --defined-only of the installed libzcnic.so
#   the declarations   the functions the installed headers declare (not
#                      static inline), as gcc's -aux-info lists them
# Nothing is generated from the headers at build time: when they change, the
# map is updated by hand (--print / --map help) and this check says exactly
# which names differ.
#
#   scripts/check-exports.sh [--prefix DIR]          check, TAP output
#   scripts/check-exports.sh --print [--prefix DIR]  the public declarations, one per line
#   scripts/check-exports.sh --map [--prefix DIR]    a map with exactly those, grouped by header
#
# --prefix DIR: an existing `make install PREFIX=DIR`; else the script
# installs into a temporary directory (BUILD/SAN as for make).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=check prefix=
while [ $# -gt 0 ]; do
	case $1 in
	--print) mode=print ;;
	--map) mode=map ;;
	--prefix) prefix=$2; shift ;;
	*) echo "usage: $0 [--print|--map] [--prefix DIR]" >&2; exit 2 ;;
	esac
	shift
done
MAP=core/libzcnic.map
VERSION_NODE=ZCNIC_0.1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$prefix" ]; then
	prefix=$tmp/prefix
	if ! make --no-print-directory install SAN="${SAN:-0}" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
		echo "not ok 1 - make install"; sed 's/^/# /' "$tmp/install.log"; exit 1
	fi
fi
inc=$prefix/include

# "header name" for every function an installed header declares. One
# translation unit includes every installed header; -aux-info (gcc, C only)
# prints each prototype it saw with the file and line it came from.
declarations() {
	local h
	(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort) | while read -r h; do
		case $h in zcnic-compat/*) echo "#include <${h#zcnic-compat/}>" ;; *) echo "#include <$h>" ;; esac
	done >"$tmp/all.c"
	gcc -std=gnu11 -D_GNU_SOURCE -I"$inc" -I"$inc/zcnic-compat" -aux-info "$tmp/aux" \
		-fsyntax-only "$tmp/all.c" || return 1
	# /* PATH:LINE:NC */ extern TYPE NAME (ARGS);
	sed -n -E "s|^/\* $inc/([^:]+):[0-9]+:[A-Z]+ \*/ extern [^(]*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*|\1 \2|p" \
		"$tmp/aux" | sort -u -k2,2 | sort -k1,1 -k2,2
}

if ! declarations >"$tmp/decl.hdr"; then
	echo "not ok 1 - the installed headers compile together"; exit 1
fi
awk '{print $2}' "$tmp/decl.hdr" | sort -u >"$tmp/decl"

case $mode in
print) cat "$tmp/decl"; exit 0 ;;
map)
	echo "/* The ABI of libzcnic.so: what the installed headers declare, nothing else."
	echo " * Checked by scripts/check-exports.sh (map == exports == declarations). */"
	echo "$VERSION_NODE {"
	echo "global:"
	awk '$1 != h { h = $1; printf "\t/* %s */\n", h } { printf "\t%s;\n", $2 }' "$tmp/decl.hdr"
	echo "local:"
	printf '\t*;\n};\n'
	exit 0 ;;
esac

# Names in the map's global: section (comments stripped).
sed -e 's|/\*.*\*/||g' "$MAP" | awk '
	/^[ \t]*global:/ { g = 1; next } /^[ \t]*local:/ { g = 0; next }
	g { gsub(/[ \t;]/, ""); if ($0 != "" && $0 != "};") print }' | sort -u >"$tmp/map"
lib=$prefix/lib/libzcnic.so
# Defined dynamic symbols, minus the version node itself (an absolute symbol).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' >"$tmp/exp.ver"
sed 's/@.*//' "$tmp/exp.ver" | sort -u >"$tmp/exp"

n=0 fail=0
# same DESC LEFT-NAME LEFT RIGHT-NAME RIGHT: ok when both lists are equal,
# else the names each side has and the other lacks.
same() {
	local d=$1 ln=$2 l=$3 rn=$4 r=$5 only
	n=$((n + 1))
	if cmp -s "$l" "$r"; then echo "ok $n - $d"; return; fi
	echo "not ok $n - $d"; fail=1
	only=$(comm -23 "$l" "$r" | tr '\n' ' ')
	[ -n "$only" ] && echo "# in $ln, not in $rn: $only"
	only=$(comm -13 "$l" "$r" | tr '\n' ' ')
	[ -n "$only" ] && echo "# in $rn, not in $ln: $only"
}
same "libzcnic.so exports exactly the names of $MAP" "the exports" "$tmp/exp" "$MAP" "$tmp/map"
same "$MAP lists exactly the functions the installed headers declare" "$MAP" "$tmp/map" \
	"the installed headers" "$tmp/decl"

n=$((n + 1))
bad=$(grep -v "@@$VERSION_NODE\$" "$tmp/exp.ver" | tr '\n' ' ')
if [ -z "$bad" ]; then echo "ok $n - every export carries version $VERSION_NODE"
else echo "not ok $n - every export carries version $VERSION_NODE"; echo "# unversioned or other: $bad"; fail=1
fi
n=$((n + 1))
if [ -s "$tmp/exp" ]; then echo "ok $n - $(wc -l <"$tmp/exp") symbols exported"
else echo "not ok $n - libzcnic.so exports nothing"; fail=1
fi
exit $fail
