#!/bin/sh
# Check that every option a config fragment asks for is in the final .config
# with the same value.  Kconfig drops an option silently when its
# dependencies are not met, and a "passing" test kernel without KASAN or
# lockdep would be a lie.
#
# usage: check-config.sh DOT_CONFIG FRAGMENT...
set -eu

config=$1
shift
bad=0
for fragment in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			option=${line%%=*} ;;
		"# CONFIG_"*" is not set")
			option=${line#\# }
			option=${option%% *} ;;
		*)
			continue ;;
		esac
		actual=$(grep -E "^($option=|# $option is not set)" "$config" || true)
		if [ "$line" != "$actual" ] &&
		   ! { [ -z "$actual" ] && [ "$line" = "# $option is not set" ]; }; then
			echo "check-config: $fragment asks for '$line'," \
			     "but .config has '${actual:-nothing}' (a dependency is missing or the option is gone)" >&2
			bad=1
		fi
	done <"$fragment"
done
exit "$bad"
