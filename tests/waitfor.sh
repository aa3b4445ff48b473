# waitfor.sh: wait_for and kill_gone, sourced by the scripts that bring up
# a shared filesystem (tests/glusterfs.sh, tests/cephfs.sh): a condition
# polled, never a fixed sleep.

# wait_for SECONDS CMD...: run CMD until it succeeds, for at most SECONDS.
wait_for() {
	wf_n=$(($1 * 10)); shift
	while [ "$wf_n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		wf_n=$((wf_n - 1))
	done
	return 1
}

# kill_gone PID WHAT: SIGKILL PID (WHAT's process, said when there is
# none) and wait, 30 s at most, until it has gone.
kill_gone() {
	[ -n "$1" ] || { echo "$2 is not running" >&2; return 1; }
	kill -KILL "$1"
	wait_for 30 sh -c "! kill -0 $1"
}
