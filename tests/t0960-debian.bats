#!/usr/bin/env bats
# t0960-debian: the Debian package (debian/).  In a copy of the source tree
# with nothing built, dpkg-buildpackage -us -uc -b makes
# tmq_VERSION_ARCH.deb; it holds the six tools, their man pages, tmq(7) and
# the completions where bash-completion and zsh look; lintian finds no
# error or warning in it; unpacked with dpkg -x into a scratch root, its
# tools run and man -l renders its pages.  Skipped, saying what is missing,
# where the build tools are not installed (.ci/run installs them).

load test_helper

setup_file() {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..} tool f
	export PKG_SKIP="" PKG_DIR="$BATS_FILE_TMPDIR/pkg"
	for tool in dpkg-buildpackage dpkg-checkbuilddeps dh lintian man; do
		command -v "$tool" >/dev/null || PKG_SKIP+=" $tool"
	done
	if [ -n "$PKG_SKIP" ]; then
		PKG_SKIP="not installed:$PKG_SKIP (apt-get install -y dpkg-dev debhelper lintian man-db)"
		return 0
	fi
	if ! dpkg-checkbuilddeps "$src/debian/control" >"$BATS_FILE_TMPDIR/deps" 2>&1; then
		PKG_SKIP="build dependencies missing: $(cat "$BATS_FILE_TMPDIR/deps")"
		return 0
	fi
	# A clean copy: from git, what it tracks and what it would (the
	# working tree as it is, built files left out); else (a release
	# tarball, as in distcheck) the tree as distributed.
	mkdir -p "$PKG_DIR/tmq"
	if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = \
	    "$(cd "$src" && pwd -P)" ]; then
		git -C "$src" ls-files --cached --others --exclude-standard |
		    while IFS= read -r f; do
			[ -e "$src/$f" ] && printf '%s\n' "$f"
		    done | tar -C "$src" -cf - -T - | tar -C "$PKG_DIR/tmq" -xf -
	else
		# (distcheck builds in _build inside the tree)
		tar -C "$src" --exclude=./_build -cf - . | tar -C "$PKG_DIR/tmq" -xf -
		chmod -R u+w "$PKG_DIR/tmq"
	fi
	# Under make check, MAKEFLAGS carries the outer make's TEST_LOGS
	# (every test, this one too) into the package's own make check, which
	# would then build the package again, and so on for ever.
	(cd "$PKG_DIR/tmq" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    -u MAKEOVERRIDES DEB_BUILD_OPTIONS="parallel=2" \
	    dpkg-buildpackage -us -uc -b) >"$PKG_DIR/build.log" 2>&1
	echo $? >"$PKG_DIR/build.status"
}

setup() {
	[ -z "$PKG_SKIP" ] || skip "$PKG_SKIP"
	export TMQ_ROOT="$BATS_TEST_TMPDIR/root"
	VERSION=$(cd "$PKG_DIR/tmq" && dpkg-parsechangelog -S Version)
	DEB="$PKG_DIR/tmq_${VERSION}_$(dpkg --print-architecture).deb"
}

@test "debian: dpkg-buildpackage -us -uc -b builds tmq_VERSION_ARCH.deb" {
	run cat "$PKG_DIR/build.status"
	if [ "$output" != 0 ]; then
		tail -n 40 "$PKG_DIR/build.log"
	fi
	assert_output 0
	[ -f "$DEB" ]
	# The build warns nowhere (the hardened flags included).
	run grep -n 'warning:' "$PKG_DIR/build.log"
	assert_output ''
	# The version is the one configure.ac gives.
	run sed -n 's/^AC_INIT(\[tmq\], \[\([^]]*\)\].*/\1/p' "$PKG_DIR/tmq/configure.ac"
	assert_output "$VERSION"
}

@test "debian: the package holds the tools, man pages and completions where they belong" {
	run dpkg-deb -c "$DEB"
	assert_success
	for t in tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump; do
		assert_line --regexp "^-rwxr-xr-x .* \./usr/bin/$t\$"
		assert_line --regexp " \./usr/share/man/man1/$t\.1\.gz\$"
		assert_line --regexp " \./usr/share/bash-completion/completions/$t\$"
	done
	assert_line --regexp " \./usr/share/man/man5/tmq-format\.5\.gz\$"
	assert_line --regexp " \./usr/share/man/man7/tmq\.7\.gz\$"
	assert_line --regexp " \./usr/share/zsh/vendor-completions/_tmq\$"
	assert_line --regexp " \./usr/share/doc/tmq/copyright\$"
	# The README, where the cookbook is, beside it.
	assert_line --regexp " \./usr/share/doc/tmq/README\.md(\.gz)?\$"
	# Nothing of the build or the tests.
	refute_line --regexp '\.(a|o|h|bats)$'
	run dpkg-deb -f "$DEB" Package Architecture Depends
	assert_success
	assert_line "Package: tmq"
	assert_line --regexp '^Depends: .*libjson-c5'
}

@test "debian: lintian finds no error or warning" {
	run lintian --fail-on error,warning --tag-display-limit 0 \
	    "$PKG_DIR/tmq_${VERSION}_$(dpkg --print-architecture).changes"
	echo "$output"
	assert_success
	refute_output --regexp '^[EW]: '
}

@test "debian: the installed tools run, and man -l renders their pages" {
	local inst="$BATS_TEST_TMPDIR/inst" page
	dpkg -x "$DEB" "$inst"
	PATH="$inst/usr/bin:$PATH"
	run --separate-stderr "$inst/usr/bin/tmq-topic" -V
	assert_success
	assert_output --partial "$VERSION"
	"$inst/usr/bin/tmq-topic" create smoke -k u32 -p 2
	printf '1:one\n2:two\n' | "$inst/usr/bin/tmq-put" -K: smoke
	run --separate-stderr "$inst/usr/bin/tmq-get" -F '%k %s\n' smoke
	assert_success
	assert_equal "$(sort <<<"$output")" $'1 one\n2 two'
	run --separate-stderr "$inst/usr/bin/tmq-dump" --verify smoke
	assert_success
	for page in "$inst"/usr/share/man/man1/tmq-*.1.gz "$inst/usr/share/man/man5/tmq-format.5.gz" \
	    "$inst/usr/share/man/man7/tmq.7.gz"; do
		run --separate-stderr env MANWIDTH=80 man -l "$page"
		assert_success
		assert_equal "$stderr" ""
		[ "${#lines[@]}" -gt 20 ]
		page=${page##*/}
		page=${page%%.*}
		assert_line --regexp "^${page^^}\\([157]\\) "
	done
	# The bash completion loads, under each tool's name, and completes.
	run bash -c 'source "$1/usr/share/bash-completion/completions/tmq-topic" &&
	    complete -p tmq-topic' _ "$inst"
	assert_success
}

@test "debian: the README's commands build and install what this test builds" {
	local src=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}
	grep -qxF 'apt-get install -y debhelper && dpkg-buildpackage -us -uc -b' "$src/README.md"
	grep -qxF 'apt-get install -y ../tmq_*_amd64.deb' "$src/README.md"
	# The glob names this package, not its debug symbols, and apt would
	# install it (simulated: this machine's /usr is not the test's).
	run bash -c 'cd "$1/tmq" && ls ../tmq_*_amd64.deb' _ "$PKG_DIR"
	assert_output "../${DEB##*/}"
	run bash -c 'cd "$1/tmq" && apt-get install -s -y ../tmq_*_amd64.deb' _ "$PKG_DIR"
	assert_success
	assert_line --regexp "^Inst tmq \\($VERSION "
}
