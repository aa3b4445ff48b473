#!/usr/bin/env bats
# t0800-completion.bats: the shell completions.  completions/tmq.bash is
# loaded into a real bash (after bash-completion when it is installed),
# COMP_WORDS and the rest are set as bash sets them, _tmq is called, and
# COMPREPLY is what is checked.  completions/_tmq is parsed and run in a
# plain zsh with compadd replaced by a stub (zcomp), when zsh is there.

load test_helper

SRC=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}

# comp WORD...: complete a command line made of these words, the last one
# (maybe empty) under the cursor; print the candidates sorted, one a line.
# With TMQ_NO_BASH_COMPLETION set, bash-completion is not loaded first.
comp() {
	bash --norc --noprofile -c '
		if [ -z "${TMQ_NO_BASH_COMPLETION-}" ] &&
		    [ -f /usr/share/bash-completion/bash_completion ]; then
			. /usr/share/bash-completion/bash_completion
		fi
		. "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_tmq "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		if ((${#COMPREPLY[@]})); then
			printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
		fi
	' "$SRC/completions/tmq.bash" "$@"
}

# Two topics and a group in $TMQ_ROOT, one topic in $OTHER.
make_roots() {
	OTHER=$BATS_TEST_TMPDIR/other
	tmq-topic create alpha
	tmq-topic create beta -p 3
	: >"$TMQ_ROOT/--group--g.twc"
	mkdir "$TMQ_ROOT/--group--g"
	tmq-topic -d "$OTHER" create gamma
}

@test "the script defines _tmq for all six tools" {
	run bash --norc --noprofile -c '. "$0"; complete -p' \
	    "$SRC/completions/tmq.bash"
	assert_success
	local t
	for t in tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump; do
		assert_line --regexp "^complete -F _tmq .*$t( |\$)"
	done
}

@test "tmq-get --fo completes to --follow and --format" {
	run comp tmq-get --fo
	assert_success
	assert_output $'--follow\n--format'
}

@test "options come from --completion-helper" {
	run comp tmq-dump -
	assert_success
	local want
	want=$(tmq-dump --completion-helper | sed -n 's/^\(-[^ ]*\) .*/\1/p' |
	    LC_ALL=C sort)
	assert_output "$want"
}

@test "tmq-topic create x -k completes key types" {
	run comp tmq-topic create x -k ''
	assert_success
	assert_line u8
	assert_line u16
	assert_line u32
	assert_line u64
	assert_line char
	run comp tmq-topic create x --key-type u1
	assert_output $'u16'
}

@test "tmq-get completes the topics of TMQ_ROOT, not its groups" {
	make_roots
	run comp tmq-get ''
	assert_success
	assert_output $'alpha\nbeta'
	run comp tmq-get alpha ''
	assert_output $'alpha\nbeta'
	run comp tmq-get b
	assert_output beta
}

@test "topics whose names begin with '.' are completed like the others" {
	make_roots
	tmq-topic create .hidden
	: >"$TMQ_ROOT/--group--.g.twc"
	run comp tmq-get ''
	assert_success
	assert_output $'.hidden\nalpha\nbeta'
	run comp tmq-get .h
	assert_output .hidden
	run comp tmq-group describe ''
	assert_output $'.g\ng'
	if command -v zsh >/dev/null; then
		run zcomp tmq-get ''
		assert_output $'.hidden\nalpha\nbeta'
		run zcomp tmq-group describe ''
		assert_output $'.g\ng'
	fi
}

@test "-d and --root on the command line choose the root" {
	make_roots
	run comp tmq-get -d "$OTHER" ''
	assert_success
	assert_output gamma
	run comp tmq-get --root "$OTHER" -f ''
	assert_output gamma
	run comp tmq-get "-d$OTHER" ''
	assert_output gamma
	# bash splits "--root=DIR" at the "=".
	run comp tmq-get --root = "$OTHER" ''
	assert_output gamma
}

@test "without -d or TMQ_ROOT, the root is under XDG_DATA_HOME, else HOME" {
	make_roots
	mkdir -p "$BATS_TEST_TMPDIR/xdg" "$BATS_TEST_TMPDIR/home/.local/share"
	cp -R "$OTHER" "$BATS_TEST_TMPDIR/xdg/tmq"
	cp -R "$TMQ_ROOT" "$BATS_TEST_TMPDIR/home/.local/share/tmq"
	run env -u TMQ_ROOT XDG_DATA_HOME="$BATS_TEST_TMPDIR/xdg" \
	    bash -c "$(declare -f comp); SRC='$SRC'; comp tmq-get ''"
	assert_output gamma
	run env -u TMQ_ROOT -u XDG_DATA_HOME HOME="$BATS_TEST_TMPDIR/home" \
	    bash -c "$(declare -f comp); SRC='$SRC'; comp tmq-get ''"
	assert_output $'alpha\nbeta'
}

@test "tmq-topic completes its subcommands" {
	run comp tmq-topic ''
	assert_success
	local want
	want=$(tmq-topic --completion-helper | sed -n 's/^operands //p' |
	    tr ' ' '\n' | LC_ALL=C sort)
	assert_output "$want"
	assert_line create
	assert_line delete
	run comp tmq-topic -d /nonexistent li
	assert_output list
}

@test "after a subcommand come the names it takes" {
	make_roots
	run comp tmq-topic info ''
	assert_output $'alpha\nbeta'
	run comp tmq-topic create ''
	assert_output ''
	run comp tmq-topic list ''
	assert_output ''
	run comp tmq-group describe ''
	assert_output g
	run comp tmq-group ''
	assert_line list
	assert_line reset
}

@test "group operands and arguments complete group names" {
	make_roots
	run comp tmq-commit ''
	assert_output g
	run comp tmq-commit g ''
	assert_output ''
	run comp tmq-get -g ''
	assert_output g
	run comp tmq-get -g g ''
	assert_output $'alpha\nbeta'
}

@test "tmq-get --from completes start and now" {
	run comp tmq-get --from ''
	assert_success
	assert_output $'now\nstart'
	run comp tmq-get -fo ''
	assert_output $'now\nstart'
	run comp tmq-get --from = s
	assert_output start
	run comp tmq-group reset g --to ''
	assert_output $'now\nstart'
}

@test "tmq-get --offset-reset completes start, now and fail" {
	run comp tmq-get -g g --offset-reset ''
	assert_success
	assert_output $'fail\nnow\nstart'
	run comp tmq-get --offset-reset f
	assert_output fail
	if command -v zsh >/dev/null; then
		run zcomp tmq-get --offset-reset ''
		assert_output $'fail\nnow\nstart'
	fi
}

@test "tmq-put completes one TOPIC and no MESSAGE" {
	make_roots
	run comp tmq-put -k 1 ''
	assert_output $'alpha\nbeta'
	run comp tmq-put alpha ''
	assert_output ''
}

@test "directory and file arguments complete file names" {
	mkdir -p "$BATS_TEST_TMPDIR/dirs/sub1" "$BATS_TEST_TMPDIR/dirs/sub2"
	: >"$BATS_TEST_TMPDIR/dirs/file1"
	run comp tmq-get -d "$BATS_TEST_TMPDIR/dirs/s"
	assert_output "$BATS_TEST_TMPDIR/dirs/sub1
$BATS_TEST_TMPDIR/dirs/sub2"
	run comp tmq-put --file "$BATS_TEST_TMPDIR/dirs/f"
	assert_output "$BATS_TEST_TMPDIR/dirs/file1"
	TMQ_NO_BASH_COMPLETION=1 run comp tmq-get -d "$BATS_TEST_TMPDIR/dirs/s"
	assert_output "$BATS_TEST_TMPDIR/dirs/sub1
$BATS_TEST_TMPDIR/dirs/sub2"
}

@test "it works without bash-completion too" {
	make_roots
	TMQ_NO_BASH_COMPLETION=1 run comp tmq-get ''
	assert_output $'alpha\nbeta'
	TMQ_NO_BASH_COMPLETION=1 run comp tmq-get --fo
	assert_output $'--follow\n--format'
}

@test "nothing after -- is an option" {
	run comp tmq-get -- -
	assert_output ''
}

@test "each tool's --completion-helper runs once per shell" {
	mkdir "$BATS_TEST_TMPDIR/wrap"
	cat >"$BATS_TEST_TMPDIR/wrap/tmq-get" <<EOF
#!/bin/sh
echo "\$*" >>"$BATS_TEST_TMPDIR/calls"
exec "$(command -v tmq-get)" "\$@"
EOF
	chmod +x "$BATS_TEST_TMPDIR/wrap/tmq-get"
	PATH=$BATS_TEST_TMPDIR/wrap:$PATH run bash --norc --noprofile -c '
		. "$0"
		for w in --fo --fr -; do
			COMP_WORDS=(tmq-get "$w") COMP_CWORD=1
			COMP_LINE="tmq-get $w" COMP_POINT=${#COMP_LINE}
			_tmq tmq-get "$w" tmq-get
			echo "${#COMPREPLY[@]}"
		done' "$SRC/completions/tmq.bash"
	assert_success
	assert_line --index 0 2
	assert_line --index 1 1
	run grep -c -- --completion-helper "$BATS_TEST_TMPDIR/calls"
	assert_output 1
}

@test "the zsh completion parses" {
	command -v zsh >/dev/null || skip "zsh is not installed: _tmq not checked"
	run zsh -n "$SRC/completions/_tmq"
	assert_success
	run head -n 1 "$SRC/completions/_tmq"
	assert_output '#compdef tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump'
}

# zcomp WORD...: run the zsh completion function _tmq on these words (the
# last under the cursor) in a plain zsh, with compadd and friends replaced
# by stubs that print what would be offered; print it sorted and filtered
# by the word under the cursor, as zsh's matcher would.
zcomp() {
	zsh -f -c '
		compadd() {
			local -a out
			while (( $# )); do
				case $1 in
				(-a) shift; out+=( ${(P)1} ) ;;
				(--) ;;
				(*) out+=( $1 ) ;;
				esac
				shift
			done
			(( $#out )) && print -l -- $out
		}
		compset() { : }
		_files() { : }
		_directories() { : }
		source <(sed "\$d" "$0")
		words=( "$@" )
		CURRENT=$#
		PREFIX=${words[-1]}
		_tmq' "$SRC/completions/_tmq" "$@" | grep -e "^${*: -1}" | LC_ALL=C sort
}

@test "zsh: _tmq offers options, key types, topics, groups and subcommands" {
	command -v zsh >/dev/null || skip "zsh is not installed: _tmq not run"
	tmq-topic create alpha
	tmq-topic create beta
	: >"$TMQ_ROOT/--group--g1.twc"
	run zcomp tmq-get --fo
	assert_output $'--follow\n--format'
	run zcomp tmq-topic create x -k ''
	assert_output $'char\nu16\nu32\nu64\nu8'
	run zcomp tmq-get ''
	assert_output $'alpha\nbeta'
	run zcomp tmq-group describe ''
	assert_output 'g1'
	run zcomp tmq-topic ''
	assert_output $'create\ndelete\ninfo\nlist\npartition\nprune'
	run zcomp tmq-get --from ''
	assert_output $'now\nstart'
	mkdir -p "$BATS_TEST_TMPDIR/other"
	TMQ_ROOT="$BATS_TEST_TMPDIR/other" tmq-topic create gamma
	run zcomp tmq-get -d "$BATS_TEST_TMPDIR/other" ''
	assert_output 'gamma'
}

# The options that SUB of TOOL takes, from the tool's --completion-helper:
# those without a list of subcommands, and those whose list names SUB.
options_of() {
	"$1" --completion-helper |
	    awk -v s="$2" '/^-/ && (NF < 3 || index("," $3 ",", "," s ",")) { print $1 }' |
	    LC_ALL=C sort
}

@test "after a subcommand, only the options it takes are offered (bash and zsh)" {
	local tool sub want
	run comp tmq-topic create x --d
	assert_output ''
	run comp tmq-group delete g --d
	assert_output ''
	run comp tmq-group reset g --d
	assert_output $'--dry-run'
	# Before the subcommand, all of them: options may come first.
	run comp tmq-topic --d
	assert_output $'--dry-run'
	for tool in tmq-topic tmq-group; do
		for sub in $("$tool" --completion-helper |
		    sed -n 's/^operands //p'); do
			want=$(options_of "$tool" "$sub")
			[ "$(wc -l <<<"$want")" -ge 4 ] || fail "$tool $sub: too few options"
			run comp "$tool" "$sub" -
			assert_output "$want"
			if command -v zsh >/dev/null; then
				run zcomp "$tool" "$sub" -
				assert_output "$want"
			fi
		done
	done
}

# --- names planted in a shared root (issue 18) ------------------------

# plant_root: the topics alpha, beta (types Ev and Other.v2) and evil, the
# group g, and beside them what a co-user of a shared root may plant: file
# names that are no topic or group name, some of them commands (each makes
# a PWNED-* file in $HOME or the current directory if it ever runs), things
# that are no regular file, and an evil.twc with such type names.  Sets
# HOME and the current directory to empty directories of the test.
plant_root() {
	local n
	export HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME" "$BATS_TEST_TMPDIR/cwd"
	cd "$BATS_TEST_TMPDIR/cwd"
	tmq-topic create alpha
	tmq-topic create beta -t Ev,Other.v2
	tmq-topic create evil
	: >"$TMQ_ROOT/--group--g.twc"
	mkdir "$TMQ_ROOT/--group--g"
	for n in '$(cd;touch${IFS}PWNED-t1)' '`cd;touch${IFS}PWNED-t2`' \
	    'a$(cd;touch${IFS}PWNED-t3)' 'al$(touch${IFS}PWNED-t4)' \
	    'al`touch${IFS}PWNED-t5`' 'al$((6*7))' 'al${IFS}x' '$HOME' \
	    'al;cd;touch${IFS}PWNED-t6' 'a*' 'al?' '[a]l' 'al{b,c}' 'al b' \
	    'al"b' "al'b" 'al\b' '~al' '-al' '--al' 'al|b' 'al&b' 'al<b' \
	    'al!b' 'al:b' 'al=b' 'al,b' 'al@b' 'al%b' 'al#b' 'al+b' \
	    $'al\nb' $'al\tb' $'al\xff' 'alé' '.' '..' '' \
	    '--group--$(cd;touch${IFS}PWNED-g1)' \
	    '--group--g$(cd;touch${IFS}PWNED-g2)' '--group--g`touch${IFS}PWNED-g3`' \
	    '--group--g*' '--group---g' '--group--' '--group--g b' \
	    '--group--.' '--group--..' $'--group--g\nh' '--group--g;x' \
	    '--group--~g' '--group--g\x' '--group--é'; do
		: >"$TMQ_ROOT/$n.twc"
	done
	mkdir "$TMQ_ROOT/aldir.twc" "$TMQ_ROOT/--group--gdir.twc"
	mkfifo "$TMQ_ROOT/alfifo.twc" "$TMQ_ROOT/--group--gfifo.twc"
	ln -s nowhere "$TMQ_ROOT/aldangling.twc"
	cat >"$TMQ_ROOT/evil.twc" <<'JSON'
{"key_width": 4, "partitions": 1, "message_types": {"Ok": 0,
 "$(cd;touch${IFS}PWNED-y1)": 1, "O$(cd;touch${IFS}PWNED-y2)": 2,
 "O`touch${IFS}PWNED-y3`": 3, "O k": 4, "-O": 5, "O\nk": 6, "O*": 7,
 "O\u00e9": 8, "O\\k": 9, "O\"k": 10, "~O": 11, ".": 12, "..": 13,
 "O;k": 14, "O{a,b}": 15, "O:k": 16}}
JSON
}

# No planted command ran, anywhere the test can see.
assert_nothing_ran() {
	run find "$BATS_TEST_TMPDIR" -name 'PWNED*'
	assert_output ''
}

@test "--completion-helper=types ROOT TOPIC: the types that may be offered, read as every tool reads a definition" {
	plant_root
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" beta
	assert_success
	assert_output $'Ev\nOther.v2'
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" evil
	assert_output Ok
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" nope
	assert_success
	assert_output ''
	assert_equal "$stderr" "tmq-put: nope: no such topic"
	# A definition that is no regular file is not opened: no hang.
	tmq-topic create fifo
	rm "$TMQ_ROOT/fifo.twc"
	mkfifo "$TMQ_ROOT/fifo.twc"
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" fifo
	assert_output ''
	assert_equal "$stderr" "tmq-put: fifo: fifo.twc: not a regular file (a FIFO)"
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" g
	assert_output ''
	assert_equal "$stderr" "tmq-put: g: no such topic"
	run --separate-stderr tmq-put --completion-helper=types "$TMQ_ROOT" --group--g
	assert_output ''
	assert_equal "$stderr" "tmq-put: --group--g: a group's log, not a topic"
	run --separate-stderr tmq-put --completion-helper=kinds "$TMQ_ROOT" beta
	assert_output ''
	assert_equal "$stderr" "tmq-put: --completion-helper=kinds: use --completion-helper=types ROOT TOPIC"
	run --separate-stderr tmq-get --completion-helper=types "$TMQ_ROOT"
	assert_equal "$stderr" "tmq-get: --completion-helper=types: use --completion-helper=types ROOT TOPIC"
	run tmq-put --completion-helper
	assert_line '-T type'
	run tmq-dump --completion-helper
	assert_line 'operands topic grouplog file'
	assert_nothing_ran
}

