#!/bin/sh
# Install the Debian packages listed in uml/packages.txt that are missing.
# Quiet when everything is present; as non-root, print the exact command and
# fail, because a build without them would fail later with a worse message.
set -eu

list=${1:-$(dirname "$0")/packages.txt}
missing=
while read -r pkg; do
	case "$pkg" in '#'* | '') continue ;; esac
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done <"$list"
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
