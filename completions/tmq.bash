# tmq.bash: bash completion for tmq-topic, tmq-put, tmq-get, tmq-group,
# tmq-commit and tmq-dump.
#
# Nothing here knows a tool's options: each tool describes them when run
# with --completion-helper, as a line "operands WORDS" (the operand kinds
# topic, group, grouplog (--group--NAME, after "--") and file, or the
# tool's subcommands) and a line per option, "-k keytype" or "--key-type
# keytype", naming the kind of its argument (none word dir file topic group
# keytype from time reset policy type order), then, when only some subcommands
# take it, those ("--json none list,info").  After a subcommand, only the
# options it takes are offered.  That output, and the usage lines of -h,
# are read once per tool and shell session.
#
# Topic and group names are read from the root: the -d/--root argument on
# the command line, else $TMQ_ROOT, else $XDG_DATA_HOME/tmq (when absolute),
# else ~/.local/share/tmq.  Anyone who shares the root can put any file
# name there: only names that follow the naming rule are offered, and no
# name from the root ever reaches compgen -W, eval or an unquoted
# expansion.  The types of a topic (for -T) are read by the tool itself
# (--completion-helper=types ROOT TOPIC), under the same rule.

declare -gA _tmq_helper_cache _tmq_usage_cache

# _tmq_load CMD: read CMD's --completion-helper output and usage lines into
# the caches, once (in this shell, not in a subshell, so that they stay).
_tmq_load()
{
	local cmd=$1 out
	if [[ -z ${_tmq_helper_cache[$cmd]+set} ]]; then
		# Not cached when it fails: the tool may be installed later.
		out=$("$cmd" --completion-helper 2>/dev/null) || return 1
		_tmq_helper_cache[$cmd]=$out
		_tmq_usage_cache[$cmd]=$("$cmd" -h 2>/dev/null |
		    sed -n -e '/^$/q' -e 's/^usage://' -e 's/^ *//p')
	fi
}

# _tmq_kind CMD OPTION: the argument kind of OPTION ("" when unknown).
_tmq_kind()
{
	local line rest
	while IFS= read -r line; do
		if [[ ${line%% *} == "$2" ]]; then
			rest=${line#* }
			printf '%s\n' "${rest%% *}"
			return
		fi
	done <<<"${_tmq_helper_cache[$1]}"
}

# _tmq_options CMD [SUB]: the options of CMD, those SUB takes when given.
_tmq_options()
{
	local line opt kind subs
	while read -r opt kind subs; do
		[[ $opt == -* ]] || continue
		if [[ -z $2 || -z $subs || ,$subs, == *",$2,"* ]]; then
			printf '%s\n' "$opt"
		fi
	done <<<"${_tmq_helper_cache[$1]}"
}

# _tmq_root ROOTARG: the root directory.
_tmq_root()
{
	local r=$1
	if [[ -n $r ]]; then
		[[ $r == "~"* ]] && r=$HOME${r#\~}
		printf '%s\n' "$r"
	elif [[ -n ${TMQ_ROOT-} ]]; then
		printf '%s\n' "$TMQ_ROOT"
	elif [[ ${XDG_DATA_HOME-} == /* ]]; then
		printf '%s\n' "$XDG_DATA_HOME/tmq"
	else
		printf '%s\n' "${HOME-}/.local/share/tmq"
	fi
}

# _tmq_is_name WORD: whether WORD follows the rule of topic and group names
# (tmq-format(5), Names): [A-Za-z0-9_.-]+, not "." or "..", not beginning with '-'.
# Such a word needs no quoting and cannot be taken for an option.  A
# pattern test, in this shell: no expansion, no subprocess.  The letters
# are listed, not given as ranges, which some locales would widen.
_tmq_is_name()
{
	case $1 in
	'' | . | .. | -* | \
	*[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-]*)
		return 1 ;;
	esac
	return 0
}

# _tmq_offer CUR WORD...: add to COMPREPLY each WORD that begins with CUR
# (never compgen -W, which expands what it is given).
_tmq_offer()
{
	local cur=$1 w
	shift
	for w; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
	return 0
}

# _tmq_names ROOT topic|group|grouplog CUR: add to COMPREPLY the topics or
# the groups of ROOT whose names begin with CUR; for grouplog, the groups'
# logs ("--group--NAME").  A name is checked before anything else is done
# with it (the glob gives the file names as they are: nothing expands
# them), and it costs no subprocess.
_tmq_names()
{
	local root=$1 kind=$2 cur=$3 f n o GLOBIGNORE
	local -a files saved=()

	# The shell's options must not change what the glob finds: no
	# failglob error, no dot file twice (dotglob, or GLOBIGNORE, unset
	# here), no "X.TWC", nothing left out by GLOBIGNORE.
	for o in nullglob failglob dotglob nocaseglob; do
		shopt -q "$o" && saved+=("$o")
	done
	shopt -s nullglob
	shopt -u failglob dotglob nocaseglob
	# Topics whose names begin with '.' are topics like the others.
	files=("$root"/*.twc "$root"/.*.twc)
	shopt -u nullglob
	((${#saved[@]})) && shopt -s "${saved[@]}"
	for f in "${files[@]}"; do
		n=${f##*/}
		n=${n%.twc}
		case $kind in
		topic) _tmq_is_name "$n" || continue ;;
		group)
			[[ $n == --group--* ]] || continue
			n=${n#--group--}
			_tmq_is_name "$n" || continue ;;
		grouplog)
			[[ $n == --group--* ]] || continue
			_tmq_is_name "${n#--group--}" || continue ;;
		*) return 0 ;;
		esac
		[[ $n == "$cur"* && -f $f ]] && COMPREPLY+=("$n")
	done
	return 0
}

# _tmq_types CMD ROOT TOPIC CUR: add to COMPREPLY the types of TOPIC that
# begin with CUR.  The tool reads the definition, with the parser every
# tool uses, and prints the names that follow the naming rule (for types,
# a choice of the completion: tmq takes any non-empty type name, but only
# such names can be offered without quoting); they are checked again here.
_tmq_types()
{
	local w
	local -a types
	_tmq_is_name "$3" || return 0
	mapfile -t types < <("$1" --completion-helper=types "$2" "$3" \
	    2>/dev/null)
	for w in "${types[@]}"; do
		[[ $w == "$4"* ]] && _tmq_is_name "$w" && COMPREPLY+=("$w")
	done
	return 0
}

# _tmq_files CUR [-d]: file (or directory) names, into COMPREPLY.
_tmq_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir $2
	else
		# compgen makes these from the file system, as bash's own
		# file name completion does: it expands only CUR.
		local -a r
		compopt -o filenames 2>/dev/null
		if [[ $2 == -d ]]; then
			mapfile -t r < <(compgen -d -- "$1")
		else
			mapfile -t r < <(compgen -f -- "$1")
		fi
		COMPREPLY+=("${r[@]}")
	fi
}

# _tmq_complete_kind KIND CUR ROOT [CMD TOPIC ENDOPTS]: complete a value of
# one kind.  For a type, CMD is the tool and TOPIC the topic operand; a
# group's log is offered only after "--" (ENDOPTS 1), where it cannot be
# taken for an option.
_tmq_complete_kind()
{
	local kind=$1 cur=$2 root=$3
	case $kind in
	keytype)
		_tmq_offer "$cur" u8 u16 u32 u64 char ;;
	from | reset)
		_tmq_offer "$cur" start now ;;
	policy)
		_tmq_offer "$cur" start now fail ;;
	order)
		_tmq_offer "$cur" partition key ;;
	dir)
		_tmq_files "$cur" -d ;;
	file)
		_tmq_files "$cur" ;;
	topic | group)
		_tmq_names "$root" "$kind" "$cur" ;;
	grouplog)
		[[ ${6-} == 1 ]] && _tmq_names "$root" grouplog "$cur" ;;
	type)
		_tmq_types "$4" "$root" "$5" "$cur" ;;
	esac
	return 0
}

# _tmq_walk CMD FROM TO: read words[FROM] to words[TO - 1] as the tool
# would.  Sets want (the option whose argument is the next word), endopts
# (1 after "--"), root (the argument of -d or --root) and ops (the
# operands), which the caller declares.
_tmq_walk()
{
	local i w c j kind
	for ((i = $2; i < $3; i++)); do
		w=${words[i]}
		if [[ -n $want ]]; then
			[[ $want == -d || $want == --root ]] && root=$w
			want=""
		elif ((!endopts)) && [[ $w == -- ]]; then
			endopts=1
		elif ((!endopts)) && [[ $w == --?*=* ]]; then
			[[ ${w%%=*} == --root ]] && root=${w#*=}
		elif ((!endopts)) && [[ $w == --?* ]]; then
			kind=$(_tmq_kind "$1" "$w")
			[[ -n $kind && $kind != none ]] && want=$w
		elif ((!endopts)) && [[ $w == -?* ]]; then
			# Bundled short options: "-0fJ", "-dDIR", "-o" "POS".
			for ((j = 1; j < ${#w}; j++)); do
				c=${w:j:1}
				kind=$(_tmq_kind "$1" "-$c")
				if [[ -n $kind && $kind != none ]]; then
					if ((j + 1 < ${#w})); then
						[[ $c == d ]] && root=${w:j+1}
					else
						want=-$c
					fi
					break
				fi
			done
		else
			ops+=("$w")
		fi
	done
}

# _tmq_topic_operand CMD CWORD: the first operand before the cursor, else
# the first after it ("tmq-put -T <TAB> TOPIC"); "" when there is none.
_tmq_topic_operand()
{
	if ((${#ops[@]})); then
		printf '%s\n' "${ops[0]}"
		return
	fi
	local want="" root="" endopts=$endopts
	local -a ops=()
	_tmq_walk "$1" $(($2 + 1)) ${#words[@]}
	((${#ops[@]})) && printf '%s\n' "${ops[0]}"
	return 0
}

_tmq()
{
	local cmd=${COMP_WORDS[0]} tool helper usage
	local -a words=() operands=()
	local i w cword=-1 cur root="" kind name topic=""
	local -a ops=()

	[[ $cmd == "~"* ]] && cmd=$HOME${cmd#\~}
	tool=${cmd##*/}
	COMPREPLY=()
	_tmq_load "$cmd" || return 0
	helper=${_tmq_helper_cache[$cmd]}
	usage=${_tmq_usage_cache[$cmd]}

	# The words, with "--opt" "=" "value" (as bash splits at '=') put
	# back together; never a word after the cursor into the cursor's.
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i > 1 && (i <= COMP_CWORD || cword != ${#words[@]} - 1))) &&
		    [[ $w == "=" && ${words[-1]} == --* ]]; then
			words[-1]+="="
		elif ((i > 2 && (i <= COMP_CWORD || cword != ${#words[@]} - 1))) &&
		    [[ ${COMP_WORDS[i-1]} == "=" && ${words[-1]} == --*= ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
		((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	((cword < 0)) && { words+=(""); cword=$((${#words[@]} - 1)); }
	cur=${words[cword]}

	# Walk the words before the cursor: options, their arguments, operands.
	local want="" endopts=0
	_tmq_walk "$cmd" 1 "$cword"
	root=$(_tmq_root "$root")

	# The argument of an option.
	if [[ -n $want ]]; then
		kind=$(_tmq_kind "$cmd" "$want")
		[[ $kind == type ]] && topic=$(_tmq_topic_operand "$cmd" "$cword")
		_tmq_complete_kind "$kind" "$cur" "$root" "$cmd" "$topic"
		return 0
	fi
	if ((!endopts)) && [[ $cur == --?*=* ]]; then
		kind=$(_tmq_kind "$cmd" "${cur%%=*}")
		[[ $kind == type ]] && topic=$(_tmq_topic_operand "$cmd" "$cword")
		if [[ $COMP_WORDBREAKS == *=* ]]; then
			_tmq_complete_kind "$kind" "${cur#*=}" "$root" "$cmd" \
			    "$topic"
		else
			local -a vals=()
			_tmq_complete_kind "$kind" "${cur#*=}" "$root" "$cmd" \
			    "$topic"
			for w in "${COMPREPLY[@]}"; do
				vals+=("${cur%%=*}=$w")
			done
			COMPREPLY=("${vals[@]}")
		fi
		return 0
	fi

	# Operands: kinds, or subcommands.
	read -r -a operands <<<"$(sed -n 's/^operands *//p' <<<"$helper")"
	local sub=1
	for w in "${operands[@]}"; do
		case $w in
		topic | group | grouplog | file) ;;
		*) sub=0; break ;;
		esac
	done

	# Options: after a subcommand, those it takes.
	if ((!endopts)) && [[ $cur == -* ]]; then
		local -a opts
		w=""
		((!sub && ${#ops[@]})) && w=${ops[0]}
		mapfile -t opts < <(_tmq_options "$cmd" "$w")
		_tmq_offer "$cur" "${opts[@]}"
		return 0
	fi

	((${#operands[@]})) || return 0
	if ((sub)); then
		# Operand kinds: the first operand, and the later ones when the
		# usage shows them repeated ("TOPIC...", "[TOPIC | FILE]...").
		if ((${#ops[@]} == 0)) ||
		    grep -Eq '(^| )((TOPIC|GROUP|FILE)|\[(TOPIC|GROUP|FILE)( \| (TOPIC|GROUP|FILE))*\])\.\.\.' \
		    <<<"$usage"; then
			for w in "${operands[@]}"; do
				_tmq_complete_kind "$w" "$cur" "$root" "$cmd" "" \
				    "$endopts"
			done
		fi
		return 0
	fi
	# Subcommands, then the name after one: the word that follows the
	# subcommand in its usage line tells what it is (none for "list",
	# GROUP or TOPIC, or NAME: the tool's own kind, unless it is a new
	# one to create).
	if ((${#ops[@]} == 0)); then
		_tmq_offer "$cur" "${operands[@]}"
		return 0
	fi
	((${#ops[@]} == 1)) || return 0
	name=$(awk -v sub_="${ops[0]}" '$2 == sub_ { print $3; exit }' \
	    <<<"$usage")
	case $name in
	GROUP) _tmq_complete_kind group "$cur" "$root" ;;
	TOPIC) _tmq_complete_kind topic "$cur" "$root" ;;
	NAME)
		[[ ${ops[0]} == create ]] && return 0
		case $tool in
		*group*) _tmq_complete_kind group "$cur" "$root" ;;
		*) _tmq_complete_kind topic "$cur" "$root" ;;
		esac ;;
	esac
	return 0
}

complete -F _tmq tmq-topic tmq-put tmq-get tmq-group tmq-commit tmq-dump
