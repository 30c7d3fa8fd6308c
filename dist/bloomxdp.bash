# bash completion for bloomxdp(8): commands, options per command, interface
# names and the values of enumerated options. The candidates come from the
# binary's own tables ('bloomxdp __complete CWORD WORD...'), so that a new
# command or option completes without a change here.
_bloomxdp()
{
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]} out
	COMPREPLY=()
	# The binary as typed (./build/bloomxdp, ~/bin/bloomxdp), else the one on PATH.
	bin=${bin/#\~/$HOME}
	[[ $bin == */* && -x $bin ]] || bin=$(type -P bloomxdp) || return 0
	out=$("$bin" __complete "$COMP_CWORD" "${COMP_WORDS[@]}" 2>/dev/null) || return 0
	if [[ $out == @files ]]; then
		[[ $cur == = ]] && cur=
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	elif [[ -n $out ]]; then
		mapfile -t COMPREPLY <<<"$out"
	fi
	return 0
}
complete -F _bloomxdp bloomxdp
