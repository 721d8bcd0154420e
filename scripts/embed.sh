#!/bin/sh
# scripts/embed.sh FILE SYMBOL - prints a C file defining
#   const unsigned char SYMBOL[]; const unsigned long SYMBOL_len;
# holding FILE's bytes, NUL-terminated (od is in coreutils; no xxd needed).
set -eu
f=$1
sym=$2
echo "/* generated from $f by scripts/embed.sh; do not edit */"
echo "const unsigned char ${sym}[] = {"
od -An -v -tx1 "$f" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^/    /'
echo "    0x00};"
echo "const unsigned long ${sym}_len = sizeof(${sym}) - 1;"
