#!/bin/sh
# glusterfs.sh: a GlusterFS volume on this machine, mounted twice through
# the FUSE client to stand for two machines sharing one root: one brick,
# or with TMQ_GLUSTER_REPLICA=3 three replicas of it (replica 3, as
# production volumes are made, its bricks beside each other).
#
#   glusterfs.sh up DIR     start it: DIR/a and DIR/b are the two mounts,
#                           DIR/brick/v the (first) brick, the truth the
#                           server holds; DIR/brick2/v, DIR/brick3/v the
#                           other replicas
#   glusterfs.sh down DIR   unmount, stop, delete, remove DIR
#   glusterfs.sh kill DIR [client.M|brick.N]   kill every brick (the
#                           server goes away); or mount M's own client
#                           process (a or b); or brick N alone (1, 2 or 3:
#                           DIR/brick/v, DIR/brick2/v, DIR/brick3/v), one
#                           replica lost while the others serve
#   glusterfs.sh start DIR [client.M|brick.N]  start the bricks that are
#                           down again, and wait until they serve; or take
#                           M's dead mount away and mount it again
#   glusterfs.sh why        print why it cannot run here (exit 1), or nothing
#
# glusterd runs with a volfile and working directory of its own under DIR
# (nothing under /var/lib/glusterd), bound to 127.0.0.2: the CLI refuses
# bricks on 127.0.0.1, and nothing may listen beyond loopback.  Needs root,
# /dev/fuse and Debian's glusterfs-server and glusterfs-client.
set -u
VOL=tmqtest
ADDR=127.0.0.2
G="gluster --mode=script"
REPLICA=${TMQ_GLUSTER_REPLICA:-1}

why() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return 1; }
	for c in glusterd gluster mount.glusterfs; do
		command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] ||
		    [ -x "/sbin/$c" ] || { echo "no $c (install glusterfs-server and glusterfs-client)"; return 1; }
	done
	if pgrep -x glusterd >/dev/null 2>&1; then
		echo "a glusterd is already running"; return 1
	fi
	return 0
}

. "$(dirname "$0")/waitfor.sh"

up() {
	d=$1
	PATH=/usr/sbin:/sbin:$PATH
	case $REPLICA in
	1) bricks="$ADDR:$d/brick/v" ;;
	3) bricks="replica 3 $ADDR:$d/brick/v $ADDR:$d/brick2/v $ADDR:$d/brick3/v" ;;
	*) echo "TMQ_GLUSTER_REPLICA='$REPLICA': want 1 or 3" >&2; return 1 ;;
	esac
	mkdir -p "$d/wd" "$d/log" "$d/brick" "$d/brick2" "$d/brick3" "$d/a" \
	    "$d/b" || return 1
	sed -e "s|/var/lib/glusterd|$d/wd|" \
	    -e "s|^end-volume|    option transport.socket.bind-address $ADDR\nend-volume|" \
	    /etc/glusterfs/glusterd.vol >"$d/glusterd.vol" || return 1
	glusterd -f "$d/glusterd.vol" -p "$d/glusterd.pid" \
	    -l "$d/log/glusterd.log" || return 1
	wait_for 60 $G pool list || { echo "glusterd does not answer" >&2; return 1; }
	# shellcheck disable=SC2086
	$G volume create $VOL $bricks force >/dev/null &&
	$G volume start $VOL >/dev/null || return 1
	for m in a b; do
		mount_client "$d" "$m" || return 1
	done
}

# mount_client DIR M: mount the volume at DIR/M through the FUSE client.
mount_client() {
	wait_for 60 mount -t glusterfs -o log-file="$1/log/mnt-$2.log" \
	    $ADDR:/$VOL "$1/$2" || { echo "cannot mount $1/$2" >&2; return 1; }
}

# client_pid DIR M: the FUSE client process of the mount DIR/M.
client_pid() {
	pgrep -f "^/usr/sbin/glusterfs .* $1/$2\$" | head -n 1
}

client_kill() {
	kill_gone "$(client_pid "$1" "$2")" "the client of $1/$2"
}

client_start() {
	[ -z "$(client_pid "$1" "$2")" ] || { echo "$1/$2's client is running" >&2; return 1; }
	PATH=/usr/sbin:/sbin:$PATH
	umount -l "$1/$2" 2>/dev/null
	mount_client "$1" "$2"
}

down() {
	d=$1
	PATH=/usr/sbin:/sbin:$PATH
	for m in a b; do
		# (by the mount table: a mount whose server is away fails a
		# stat, and mountpoint(1) with it)
		if grep -q " $d/$m fuse" /proc/self/mounts; then
			umount "$d/$m" 2>/dev/null || umount -l "$d/$m"
		fi
	done
	$G volume stop $VOL force >/dev/null 2>&1
	$G volume delete $VOL >/dev/null 2>&1
	if [ -f "$d/glusterd.pid" ]; then
		pid=$(cat "$d/glusterd.pid")
		kill "$pid" 2>/dev/null
		wait_for 30 sh -c "! kill -0 $pid 2>/dev/null"
	fi
	# Brick and self-heal daemons glusterd started for our volume.
	pkill -f "glusterfsd.*$VOL" 2>/dev/null
	pkill -f "glustershd|gluster/glustershd" 2>/dev/null
	rm -rf "$d"
}

# The bricks' processes (glusterfsd serving DIR's bricks), or nothing.
brick_pids() {
	pgrep -f "glusterfsd.*$1/brick[23]*/v" | tr '\n' ' '
}

brick_kill() {
	pids=$(brick_pids "$1")
	[ -n "$pids" ] || { echo "no brick process for $1" >&2; return 1; }
	# shellcheck disable=SC2086
	kill -KILL $pids
	wait_for 30 sh -c "[ -z \"\$(pgrep -f 'glusterfsd.*$1/brick[23]*/v')\" ]"
}

# brick_dir N: brick N's folder (1 is brick, 2 brick2, 3 brick3).
brick_dir() {
	case $1 in
	1) echo brick ;;
	2|3) [ "$REPLICA" = 3 ] || { echo "brick.$1: the volume has one brick" >&2; return 1; }
	    echo "brick$1" ;;
	*) echo "brick.$1: want 1, 2 or 3" >&2; return 1 ;;
	esac
}

# one_brick_kill DIR N: kill brick N's process alone.
one_brick_kill() {
	b=$(brick_dir "$2") || return 1
	kill_gone "$(pgrep -f "glusterfsd.*$1/$b/v" | head -n 1)" "brick $1/$b/v"
}

# bricks_up DIR: every brick of DIR's volume has its process.
bricks_up() {
	[ "$(pgrep -f "glusterfsd.*$1/brick[23]*/v" | wc -l)" -ge "$REPLICA" ]
}

brick_start() {
	PATH=/usr/sbin:/sbin:$PATH
	# A start soon after the kill can find glusterd still taking the
	# bricks for running ("discovered already-running brick") and start
	# none: ask again until their processes are there.
	tries=12
	until $G volume start $VOL force >/dev/null && wait_for 5 bricks_up "$1"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || { echo "the brick does not come back" >&2; return 1; }
	done
	# (the mounts find them again on their own)
}

case ${1-} in
why) why ;;
up) why >&2 && up "$2" ;;
down) down "$2" ;;
kill) case ${3-} in client.*) client_kill "$2" "${3#client.}" ;;
	brick.*) one_brick_kill "$2" "${3#brick.}" ;; *) brick_kill "$2" ;; esac ;;
start) case ${3-} in client.*) client_start "$2" "${3#client.}" ;;
	*) brick_start "$2" ;; esac ;;
*) echo "usage: glusterfs.sh up DIR | down DIR | kill DIR [client.M|brick.N] | start DIR [client.M|brick.N] | why" >&2; exit 2 ;;
esac
