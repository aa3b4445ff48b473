# tmq.bash: bash completion for tmq-topic, tmq-put, tmq-get, tmq-group,
# tmq-commit and tmq-dump.
#
# Nothing here knows a tool's options: each tool describes them when run
# with --completion-helper, as a line "operands WORDS" (the operand kinds
# topic, group and file, or the tool's subcommands) and a line per option,
# "-k keytype" or "--key-type keytype", naming the kind of its argument
# (none word dir file topic group keytype from time reset policy), then,
# when only some subcommands take it, those ("--json none list,info").
# After a subcommand, only the options it takes are offered.  That output,
# and the usage lines of -h, are read once per tool and shell session.
#
# Topic and group names are read from the root: the -d/--root argument on
# the command line, else $TMQ_ROOT, else $XDG_DATA_HOME/tmq (when absolute),
# else ~/.local/share/tmq.

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

# _tmq_names ROOT topic|group: the topic or group names of ROOT.
_tmq_names()
{
	local f n
	# Topics whose names begin with '.' are topics like the others.
	for f in "$1"/*.twc "$1"/.*.twc; do
		[[ -f $f ]] || continue
		n=${f##*/}
		n=${n%.twc}
		if [[ $n == --group--* ]]; then
			[[ $2 == group && -n ${n#--group--} ]] &&
			    printf '%s\n' "${n#--group--}"
		else
			[[ $2 == topic ]] && printf '%s\n' "$n"
		fi
	done
}

# _tmq_add ARGS...: add what compgen ARGS prints to COMPREPLY.
_tmq_add()
{
	local -a r
	mapfile -t r < <(compgen "$@")
	COMPREPLY+=("${r[@]}")
}

# _tmq_files CUR [-d]: file (or directory) names, into COMPREPLY.
_tmq_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir $2
	else
		compopt -o filenames 2>/dev/null
		if [[ $2 == -d ]]; then
			_tmq_add -d -- "$1"
		else
			_tmq_add -f -- "$1"
		fi
	fi
}

# _tmq_complete_kind KIND CUR ROOT: complete a value of one kind.
_tmq_complete_kind()
{
	local kind=$1 cur=$2 root=$3
	case $kind in
	keytype)
		_tmq_add -W 'u8 u16 u32 u64 char' -- "$cur" ;;
	from | reset)
		_tmq_add -W 'start now' -- "$cur" ;;
	policy)
		_tmq_add -W 'start now fail' -- "$cur" ;;
	dir)
		_tmq_files "$cur" -d ;;
	file)
		_tmq_files "$cur" ;;
	topic | group)
		# Names are [A-Za-z0-9_.-]+: no quoting to worry about.
		_tmq_add -W "$(_tmq_names "$root" "$kind")" -- "$cur" ;;
	esac
}

_tmq()
{
	local cmd=${COMP_WORDS[0]} tool helper usage operands
	local -a words=()
	local i w cword=-1 cur prev root="" kind name
	local -a ops=()

	[[ $cmd == "~"* ]] && cmd=$HOME${cmd#\~}
	tool=${cmd##*/}
	COMPREPLY=()
	_tmq_load "$cmd" || return 0
	helper=${_tmq_helper_cache[$cmd]}
	usage=${_tmq_usage_cache[$cmd]}

	# The words up to the cursor, with "--opt" "=" "value" (as bash
	# splits at '=') put back together.
	for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i > 1)) && [[ $w == "=" && ${words[-1]} == --* ]]; then
			words[-1]+="="
		elif ((i > 2)) && [[ ${COMP_WORDS[i-1]} == "=" &&
		    ${words[-1]} == --*= ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
		((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	((cword < 0)) && { words+=(""); cword=$((${#words[@]} - 1)); }
	cur=${words[cword]}

	# Walk the words before the cursor: options, their arguments, operands.
	local want="" endopts=0 c j
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if [[ -n $want ]]; then
			[[ $want == -d || $want == --root ]] && root=$w
			want=""
		elif ((!endopts)) && [[ $w == -- ]]; then
			endopts=1
		elif ((!endopts)) && [[ $w == --?*=* ]]; then
			[[ ${w%%=*} == --root ]] && root=${w#*=}
		elif ((!endopts)) && [[ $w == --?* ]]; then
			kind=$(_tmq_kind "$cmd" "$w")
			[[ -n $kind && $kind != none ]] && want=$w
		elif ((!endopts)) && [[ $w == -?* ]]; then
			# Bundled short options: "-0fJ", "-dDIR", "-o" "POS".
			for ((j = 1; j < ${#w}; j++)); do
				c=${w:j:1}
				kind=$(_tmq_kind "$cmd" "-$c")
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
	root=$(_tmq_root "$root")

	# The argument of an option.
	if [[ -n $want ]]; then
		_tmq_complete_kind "$(_tmq_kind "$cmd" "$want")" "$cur" "$root"
		return 0
	fi
	if ((!endopts)) && [[ $cur == --?*=* ]]; then
		kind=$(_tmq_kind "$cmd" "${cur%%=*}")
		if [[ $COMP_WORDBREAKS == *=* ]]; then
			_tmq_complete_kind "$kind" "${cur#*=}" "$root"
		else
			local -a vals=()
			_tmq_complete_kind "$kind" "${cur#*=}" "$root"
			for w in "${COMPREPLY[@]}"; do
				vals+=("${cur%%=*}=$w")
			done
			COMPREPLY=("${vals[@]}")
		fi
		return 0
	fi

	# Operands: kinds, or subcommands.
	operands=$(sed -n 's/^operands *//p' <<<"$helper")
	local sub=1
	for w in $operands; do
		[[ $w == topic || $w == group || $w == file ]] || { sub=0; break; }
	done

	# Options: after a subcommand, those it takes.
	if ((!endopts)) && [[ $cur == -* ]]; then
		w=""
		((!sub && ${#ops[@]})) && w=${ops[0]}
		_tmq_add -W "$(_tmq_options "$cmd" "$w")" -- "$cur"
		return 0
	fi

	[[ -z $operands ]] && return 0
	if ((sub)); then
		# Operand kinds: the first operand, and the later ones when the
		# usage shows them repeated ("TOPIC...", "[TOPIC | FILE]...").
		if ((${#ops[@]} == 0)) ||
		    grep -Eq '(^| )((TOPIC|GROUP|FILE)|\[(TOPIC|GROUP|FILE)( \| (TOPIC|GROUP|FILE))*\])\.\.\.' \
		    <<<"$usage"; then
			for w in $operands; do
				_tmq_complete_kind "$w" "$cur" "$root"
			done
		fi
		return 0
	fi
	# Subcommands, then the name after one: the word that follows the
	# subcommand in its usage line tells what it is (none for "list",
	# GROUP or TOPIC, or NAME: the tool's own kind, unless it is a new
	# one to create).
	if ((${#ops[@]} == 0)); then
		_tmq_add -W "$operands" -- "$cur"
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
