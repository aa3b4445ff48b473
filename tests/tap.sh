# tap.sh: what the TAP checks of make check that are shell scripts
# (tests/layers.sh, tests/listed.sh) share; sourced, not run.

# tap N KIND DESCRIPTION: one TAP line for the breaches of KIND in $found
# (lines "KIND<TAB>text"), each breach after it as a diagnostic line.
tap() {
	b=$(printf '%s\n' "$found" | sed -n "s/^$2	//p")
	if [ -z "$b" ]; then
		echo "ok $1 - $3"
	else
		echo "not ok $1 - $3"
		printf '%s\n' "$b" | sed 's/^/# /'
	fi
}
