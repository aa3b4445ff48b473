#!/usr/bin/env bats
# t0800-completion.bats: the shell completions.  completions/tmq.bash is
# loaded into a real bash (after bash-completion when it is installed),
# COMP_WORDS and the rest are set as bash sets them, _tmq is called, and
# COMPREPLY is what is checked.  completions/_tmq is parsed and run in a
# plain zsh with compadd replaced by a stub (zcomp), when zsh is there.
# Names a co-user planted in the root are completed in every place a name
# is, both ways and in an interactive bash and zsh that tmux drives (when
# tmux is installed): none of them may run or be offered.

load test_helper

SRC=${TMQ_SRCDIR:-$BATS_TEST_DIRNAME/..}

# comp WORD...: complete a command line made of these words, the last one
# (maybe empty) under the cursor; print the candidates sorted, one a line.
# With TMQ_NO_BASH_COMPLETION set, bash-completion is not loaded first;
# with TMQ_CWORD set, the cursor is at the end of that word instead;
# TMQ_BASH_SETUP is run in that bash before the completion is loaded.
comp() {
	bash --norc --noprofile -c '
		eval "${TMQ_BASH_SETUP-}"
		if [ -z "${TMQ_NO_BASH_COMPLETION-}" ] &&
		    [ -f /usr/share/bash-completion/bash_completion ]; then
			. /usr/share/bash-completion/bash_completion
		fi
		. "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=${TMQ_CWORD:-$(($# - 1))}
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		w="${COMP_WORDS[*]:0:COMP_CWORD+1}"
		[ -n "${TMQ_CWORD-}" ] && COMP_POINT=${#w}
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

@test "the options of large messages and the work queue complete: --max-message after create only, --no-resolve, --exec, --dead-letter's topics" {
	tmq-topic create ev
	tmq-topic create dead
	run comp tmq-topic create x --max
	assert_output --max-message
	run comp tmq-topic list --max
	assert_output ''
	run comp tmq-get --no-r
	assert_output --no-resolve
	run comp tmq-get --ex
	assert_output --exec
	run comp tmq-get -g G --exec cat --dead-letter d
	assert_output dead
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
# that are no regular file, and an evil.twc with such type names (those a
# definition may hold: no control character, which makes it corrupt).  Sets
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
 "O`touch${IFS}PWNED-y3`": 3, "O k": 4, "-O": 5, "O*": 7,
 "O\u00e9": 8, "O\\k": 9, "O\"k": 10, "~O": 11, ".": 12, "..": 13,
 "O;k": 14, "O{a,b}": 15, "O:k": 16}}
JSON
}

# No planted command ran, anywhere the test can see.
assert_nothing_ran() {
	run find "$BATS_TEST_TMPDIR" -name 'PWNED*'
	assert_output ''
}

# Every place a name is completed: the text before the cursor, a tab, and
# what is offered there, in order.
planted_cases() {
	cat <<'EOF2'
tmq-get 	alpha beta evil
tmq-get a	alpha
tmq-get al	alpha
tmq-get alpha 	alpha beta evil
tmq-get -g 	g
tmq-get --group 	g
tmq-get --group=	g
tmq-get -g g 	alpha beta evil
tmq-put 	alpha beta evil
tmq-put -k 1 a	alpha
tmq-put beta -T 	Ev Other.v2
tmq-put evil -T 	Ok
tmq-put evil -T O	Ok
tmq-put evil --type 	Ok
tmq-put evil --type=	Ok
tmq-dump 	alpha beta evil
tmq-dump -- 	--group--g alpha beta evil
tmq-dump -- --g	--group--g
tmq-dump -- -	--group--g
tmq-commit 	g
tmq-commit -t 	alpha beta evil
tmq-commit g -t a	alpha
tmq-topic info 	alpha beta evil
tmq-topic partition a	alpha
tmq-topic prune 	alpha beta evil
tmq-topic delete 	alpha beta evil
tmq-group describe 	g
tmq-group rebalance 	g
tmq-group reset 	g
tmq-group delete 	g
tmq-group describe g -t 	alpha beta evil
tmq-group reset g --topic=a	alpha
EOF2
}

# words_of LINE: the words bash makes of LINE for COMP_WORDS ("--x=v" as
# "--x" "=" "v"; a last, empty word after a space).
words_of() {
	local -a in out=()
	local w
	read -r -a in <<<"$1"
	for w in "${in[@]}"; do
		if [[ $w == --?*=* ]]; then
			out+=("${w%%=*}" =)
			[ -n "${w#*=}" ] && out+=("${w#*=}")
		else
			out+=("$w")
		fi
	done
	[[ $1 == *" " ]] && out+=("")
	printf '%s\0' "${out[@]}"
}

@test "bash: names planted in the root never run and are never offered, wherever a name is completed" {
	plant_root
	local line want words got bad=""
	while IFS=$'\t' read -r line want; do
		mapfile -d '' -t words < <(words_of "$line")
		got=$(comp "${words[@]}" | tr '\n' ' ')
		want=$(tr ' ' '\n' <<<"$want" | LC_ALL=C sort | tr '\n' ' ')
		[ "$got" = "$want" ] || bad+="'$line': offered '$got', not '$want'"$'\n'
	done < <(planted_cases)
	assert_equal "$bad" ""
	assert_nothing_ran
}

@test "bash: the shell's glob and match options change nothing that is offered" {
	plant_root
	tmq-topic create .hidden
	: >"$TMQ_ROOT/ALPHA.TWC"
	mkdir "$BATS_TEST_TMPDIR/empty"
	export TMQ_BASH_SETUP='shopt -s failglob dotglob nocaseglob extglob
	    shopt -u nullglob; GLOBIGNORE=$TMQ_ROOT/*:x'
	run comp tmq-get ''
	assert_output $'.hidden\nalpha\nbeta\nevil'
	run comp tmq-get a
	assert_output alpha
	run comp tmq-group describe ''
	assert_output g
	run comp tmq-get -d "$BATS_TEST_TMPDIR/empty" ''
	assert_output ''
	run comp tmq-put evil -T ''
	assert_output Ok
	assert_nothing_ran
}

@test "bash: a type is completed for the topic after the cursor too, and --opt=VALUE in one word" {
	plant_root
	TMQ_CWORD=2 run comp tmq-put -T '' evil
	assert_output Ok
	TMQ_CWORD=2 run comp tmq-put -T O -k 1 -- beta
	assert_output Other.v2
	run comp tmq-put -T ''
	assert_output ''
	# A word that is no topic name is not asked about.
	run comp tmq-put '$(cd;touch${IFS}PWNED-op)' -T ''
	assert_output ''
	TMQ_BASH_SETUP='COMP_WORDBREAKS=${COMP_WORDBREAKS//=}' \
	    run comp tmq-put evil --type=
	assert_output --type=Ok
	TMQ_BASH_SETUP='COMP_WORDBREAKS=${COMP_WORDBREAKS//=}' \
	    run comp tmq-get --group=
	assert_output --group=g
	assert_nothing_ran
}

# forks COMMAND...: how many processes COMMAND and its children start.
forks() {
	strace -f -qq -e trace=clone,clone3,fork,vfork -o "$BATS_TEST_TMPDIR/strace" "$@" >/dev/null
	grep -E '^[0-9]+ +(clone3?|v?fork)\(' "$BATS_TEST_TMPDIR/strace" | grep -vc CLONE_THREAD
}

@test "bash: 4,000 more files in the root cost a completion no process more" {
	command -v strace >/dev/null || skip "strace is not installed: processes not counted"
	plant_root
	local line small big i
	for line in "tmq-get ''" "tmq-group describe ''" "tmq-dump -- ''" \
	    "tmq-put evil -T ''"; do
		small+=" $(forks bash -c "$(declare -f comp); SRC='$SRC'; comp $line")"
	done
	for ((i = 0; i < 1000; i++)); do
		: >"$TMQ_ROOT/t$i.twc" >"$TMQ_ROOT/--group--g$i.twc"
		: >"$TMQ_ROOT/t\$(:)$i.twc" >"$TMQ_ROOT/--group--g\$(:)$i.twc"
	done
	for line in "tmq-get ''" "tmq-group describe ''" "tmq-dump -- ''" \
	    "tmq-put evil -T ''"; do
		big+=" $(forks bash -c "$(declare -f comp); SRC='$SRC'; comp $line")"
	done
	assert_equal "$big" "$small"
	run comp tmq-get t
	assert_equal "${#lines[@]}" 1000
	run comp tmq-group describe g
	assert_equal "${#lines[@]}" 1001
	assert_nothing_ran
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

# --- a real interactive bash and zsh, driven through tmux -------------

teardown() {
	if [ -n "${TMUX_SOCK-}" ]; then
		tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || :
	fi
}

# tmux_shell bash|zsh: start that shell, interactive, in a tmux server of
# the test's own (its socket under $BATS_TEST_TMPDIR), with the completion
# installed as a user would: for bash, bash-completion loads tmq.bash
# under the tool's name on the first TAB; for zsh, compinit finds _tmq on
# fpath.  Two keys are the test's: C-o inserts every completion of the
# word at the cursor (readline's insert-completions; zsh's _all_matches),
# C-t appends the command line, then a NUL, to $SYNC and empties it.
# Returns once the shell shows its prompt.
tmux_shell() {
	local sh=$1 rc bc t
	command -v tmux >/dev/null ||
	    skip "tmux is not installed: the interactive $sh is not run"
	command -v "$sh" >/dev/null ||
	    skip "$sh is not installed: the interactive $sh is not run"
	TMUX_SOCK=$BATS_TEST_TMPDIR/tmux.sock
	SYNC=$BATS_TEST_TMPDIR/sync
	: >"$SYNC"
	rc=$BATS_TEST_TMPDIR/rc.$sh
	if [ "$sh" = bash ]; then
		[ -f /usr/share/bash-completion/bash_completion ] ||
		    skip "bash-completion is not installed: the interactive bash is not run"
		bc=$BATS_TEST_TMPDIR/bash-completion
		mkdir -p "$bc/completions"
		for t in tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump; do
			ln -s "$SRC/completions/tmq.bash" "$bc/completions/$t"
		done
		cat >"$rc" <<EOF2
BASH_COMPLETION_USER_DIR='$bc'
. /usr/share/bash-completion/bash_completion
SYNC='$SYNC'
bind '"\C-o": insert-completions'
bind -x '"\C-t": printf "%s\\0" "\$READLINE_LINE" >>"\$SYNC"; READLINE_LINE=; READLINE_POINT=0'
unset HISTFILE
PS1='READY\$ '
EOF2
		set -- bash --noprofile --rcfile "$rc" -i
	else
		mkdir -p "$BATS_TEST_TMPDIR/zdot"
		cat >"$BATS_TEST_TMPDIR/zdot/.zshrc" <<EOF2
fpath=('$SRC/completions' \$fpath)
autoload -Uz compinit && compinit -u -d '$BATS_TEST_TMPDIR/zcompdump'
zle -C all-matches complete-word _generic
zstyle ':completion:all-matches::::' completer _all_matches _complete
zstyle ':completion:all-matches:*' insert yes
bindkey '^O' all-matches
SYNC='$SYNC'
tmq-test-dump() { print -rn -- "\$BUFFER"\$'\\0' >>\$SYNC; BUFFER=; }
zle -N tmq-test-dump
bindkey '^T' tmq-test-dump
unset HISTFILE
PS1='READY%% '
EOF2
		set -- zsh -d -i
	fi
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -s tmq -x 200 -y 50 \
	    -c "$PWD" env -i HOME="$HOME" PATH="$PATH" TERM=screen LANG=C.UTF-8 \
	    TMQ_ROOT="$TMQ_ROOT" ZDOTDIR="$BATS_TEST_TMPDIR/zdot" "$@"
	wait_for pane_shows READY
}

# pane_shows TEXT: the shell's screen shows TEXT.
pane_shows() {
	tmux -S "$TMUX_SOCK" capture-pane -p -t tmq | grep -qF -- "$1"
}

# synced N: the shell has written N command lines to $SYNC.
synced() {
	[ "$(tr -cd '\0' <"$SYNC" | wc -c)" -ge "$1" ]
}

# sorted_words TEXT: the words of TEXT, sorted, on one line.
sorted_words() {
	tr ' ' '\n' <<<"$1" | grep -v '^$' | LC_ALL=C sort | tr '\n' ' '
}

# Every planted case typed into the shell tmux_shell started: the line,
# C-o to insert what is offered, C-t to write the line out; then each
# line written is compared, word by word, with the line and what it
# should offer.
interactive_cases() {
	local n=0 line want base bad="" i
	local -a lines_in wants got
	while IFS=$'\t' read -r line want; do
		lines_in+=("$line")
		wants+=("$want")
		tmux -S "$TMUX_SOCK" send-keys -t tmq -l -- "$line"
		tmux -S "$TMUX_SOCK" send-keys -t tmq C-o C-t
		n=$((n + 1))
		wait_for synced "$n"
	done < <(planted_cases)
	mapfile -d '' -t got <"$SYNC"
	for ((i = 0; i < n; i++)); do
		line=${lines_in[i]}
		# The line up to the word completed ("--x=" kept).
		base=${line%[ =]*}
		base=${line:0:${#base}+1}
		want="$base${wants[i]} "
		if [ "$(sorted_words "${got[i]}")" != "$(sorted_words "$want")" ]; then
			bad+="'$line': completed to '${got[i]}', not '$want'"$'\n'
		fi
	done
	assert_equal "$bad" ""
}

@test "bash, interactive in tmux: planted names never run and are never offered" {
	plant_root
	tmux_shell bash
	interactive_cases
	assert_nothing_ran
}

@test "zsh, interactive in tmux: planted names never run and are never offered" {
	plant_root
	tmux_shell zsh
	interactive_cases
	assert_nothing_ran
}

@test "zsh (compadd stubbed): the types after -T, group logs after -- for tmq-dump" {
	command -v zsh >/dev/null || skip "zsh is not installed: _tmq not run"
	plant_root
	run zcomp tmq-put evil -T ''
	assert_output Ok
	run zcomp tmq-put beta -T O
	assert_output Other.v2
	run zcomp tmq-dump -- ''
	assert_output $'--group--g\nalpha\nbeta\nevil'
	run zcomp tmq-dump ''
	assert_output $'alpha\nbeta\nevil'
	assert_nothing_ran
}
