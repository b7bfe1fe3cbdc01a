#!/bin/sh
# Install the Debian packages listed in uml/packages.txt that are missing.
# Quiet when everything is present; as non-root, print the exact command and
# fail, because a build without them would fail later with a worse message.
set -eu

list=${1:-$(dirname "$0")/packages.txt}
wanted=$(grep -v -e '^#' -e '^[[:space:]]*$' "$list")
# One dpkg-query for all of them: this runs at every make.  It names the
# installed ones; a package it does not know is left out (and is missing).
# shellcheck disable=SC2086 # one word per package
installed=" $(dpkg-query -W -f='${Package}:${Status}\n' $wanted 2>/dev/null |
	sed -n 's/:install ok installed$//p' | tr '\n' ' ')"
missing=
for pkg in $wanted; do
	case "$installed" in
	*" $pkg "*) ;;
	*) missing="$missing $pkg" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run as root, then make again:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # one word per package is the point
apt-get install -y -q --no-install-recommends $missing
