#!/bin/sh
# cephfs.sh: a one-node Ceph cluster on this machine (Debian's Ceph, 16.2
# "pacific" on Debian 12) on 127.0.0.1 only, and CephFS mounted through
# ceph-fuse by three clients of their own (three processes, three
# caches): two to stand for two machines sharing one root, the third the
# server's side of it.
#
#   cephfs.sh up DIR        start one mon, one mgr, one OSD (BlueStore on a
#                           sparse file under DIR), one MDS, make the file
#                           system; DIR/a and DIR/b are the two mounts
#                           (client.a, client.b, ceph-fuse's defaults),
#                           DIR/t the truth: client.t, without the object
#                           cache (client oc = false), which nothing
#                           writes through and which reads what the OSD
#                           holds
#   cephfs.sh down DIR      unmount, stop what DIR's pid files name, remove DIR
#   cephfs.sh kill DIR [D]  SIGKILL daemon D (default osd.0, the server's
#                           data going away; or mds.a, mon.a; or client.a,
#                           client.b, a mount's own ceph-fuse)
#   cephfs.sh start DIR [D] start it again, and wait until it serves (a
#                           client: its dead mount taken away, mounted again)
#   cephfs.sh why           print why it cannot run here (exit 1), or nothing
#
# Pools of one copy, authentication off (every address is on loopback), no
# systemd, nothing under /etc/ceph or /var/lib/ceph: the configuration,
# the daemons' data, logs, sockets and pid files (DIR/run/NAME.pid) are
# all under DIR, and down and kill end only the pids those files name.
# Needs root, /dev/fuse and Debian's ceph-mon, ceph-mgr, ceph-osd,
# ceph-mds, ceph-fuse, ceph-common and uuid-runtime.
set -u
PATH=/usr/sbin:/sbin:/usr/bin:/bin:$PATH
MON='[v2:127.0.0.1:3300,v1:127.0.0.1:6789]'
CLIENTS="a b t"

C() { c_d=$1; shift; ceph -c "$c_d/ceph.conf" --connect-timeout 20 "$@"; }

why() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return 1; }
	for c in ceph-mon:ceph-mon ceph-mgr:ceph-mgr ceph-osd:ceph-osd \
	    ceph-mds:ceph-mds ceph-fuse:ceph-fuse ceph:ceph-common \
	    monmaptool:ceph-common ceph-authtool:ceph-common \
	    uuidgen:uuid-runtime; do
		command -v "${c%%:*}" >/dev/null 2>&1 ||
		    { echo "no ${c%%:*} (install Debian's ${c#*:})"; return 1; }
	done
	if pgrep -x ceph-mon >/dev/null 2>&1; then
		echo "a ceph-mon is already running"; return 1
	fi
	return 0
}

. "$(dirname "$0")/waitfor.sh"

conf() {
	cat <<EOF
[global]
fsid = $2
mon host = $MON
mon initial members = a
public network = 127.0.0.0/8
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
run dir = $1/run
pid file = $1/run/\$name.pid
admin socket = $1/run/\$name.asok
log file = $1/log/\$name.log
crash dir = $1/crash
keyring = $1/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
[mon]
mon data = $1/mon/\$name
mon cluster log file = $1/log/cluster.log
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 10
[mgr]
mgr data = $1/mgr/\$name
[osd]
osd data = $1/osd/\$name
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 10737418240
osd memory target = 1073741824
[mds]
mds data = $1/mds/\$name
mds cache memory limit = 268435456
[client.t]
client oc = false
EOF
}

start_daemon() {	# DIR NAME: start it (it forks, writes its pid file)
	case $2 in
	mon.* | mgr.* | osd.* | mds.*) "ceph-${2%%.*}" -c "$1/ceph.conf" -i "${2#*.}" \
	    >>"$1/log/start.out" 2>&1 ;;
	*) echo "no daemon $2" >&2; return 1 ;;
	esac
}

# serving DIR NAME: the daemon NAME says, on its admin socket, that it
# serves (an OSD active, an MDS up:active, a mon in quorum).
serving() {
	s=$(ceph --admin-daemon "$1/run/$2.asok" status 2>/dev/null) || return 1
	case $2 in
	osd.*) echo "$s" | grep -q '"state": "active"' ;;
	mds.*) echo "$s" | grep -q '"state": "up:active"' ;;
	mon.*) echo "$s" | grep -q '"state": "leader"' ;;
	*) return 0 ;;
	esac
}

pgs_clean() {
	s=$(C "$1" pg stat 2>/dev/null) || return 1
	echo "$s" | grep -q 'active+clean' &&
	    ! echo "$s" | grep -qE 'creating|peering|unknown|inactive|down|activating'
}

up() {
	d=$1
	[ ! -e "$d/ceph.conf" ] || { echo "$d already has a cluster" >&2; return 1; }
	mkdir -p "$d/run" "$d/log" "$d/mon/mon.a" "$d/mgr/mgr.x" \
	    "$d/osd/osd.0" "$d/mds/mds.a" "$d/crash" || return 1
	for m in $CLIENTS; do mkdir -p "$d/$m" || return 1; done
	fsid=$(uuidgen)
	conf "$d" "$fsid" >"$d/ceph.conf" || return 1
	ceph-authtool --create-keyring "$d/keyring" --gen-key -n mon. \
	    --cap mon 'allow *' >/dev/null &&
	monmaptool --create --clobber --fsid "$fsid" --addv a "$MON" \
	    "$d/monmap" >/dev/null &&
	ceph-mon -c "$d/ceph.conf" --mkfs -i a --monmap "$d/monmap" \
	    --keyring "$d/keyring" || return 1
	start_daemon "$d" mon.a || return 1
	wait_for 60 C "$d" mon stat || { echo "the mon does not answer" >&2; return 1; }
	start_daemon "$d" mgr.x || return 1
	uuid=$(uuidgen)
	id=$(C "$d" osd new "$uuid") || return 1
	[ "$id" = 0 ] || { echo "osd new gave id $id, not 0" >&2; return 1; }
	ceph-osd -c "$d/ceph.conf" -i 0 --mkfs --osd-uuid "$uuid" \
	    >"$d/log/osd-mkfs.log" 2>&1 || { cat "$d/log/osd-mkfs.log" >&2; return 1; }
	start_daemon "$d" osd.0 || return 1
	wait_for 120 serving "$d" osd.0 || { echo "the OSD does not come up" >&2; return 1; }
	C "$d" osd pool create cephfs_metadata 16 16 replicated >/dev/null &&
	C "$d" osd pool create cephfs_data 32 32 replicated >/dev/null &&
	C "$d" fs new cephfs cephfs_metadata cephfs_data >/dev/null || return 1
	start_daemon "$d" mds.a || return 1
	wait_for 120 serving "$d" mds.a || { echo "the MDS does not become active" >&2; return 1; }
	wait_for 120 pgs_clean "$d" || { echo "the PGs are not clean" >&2; return 1; }
	for m in $CLIENTS; do
		mount_client "$d" "$m" || return 1
	done
}

# stop PID: SIGTERM, and SIGKILL if it has not ended within 10 s.
stop() {
	kill "$1" 2>/dev/null || return 0
	wait_for 10 sh -c "! kill -0 $1" || kill -KILL "$1" 2>/dev/null
	wait_for 10 sh -c "! kill -0 $1"
}

down() {
	d=$1
	[ -f "$d/ceph.conf" ] || { rm -rf "$d"; return 0; }
	# A ceph-fuse removes its pid file as it ends: read them first.
	clients=
	for m in $CLIENTS; do clients="$clients $(pidof_ "$d" "client.$m")"; done
	for m in $CLIENTS; do
		# (by the mount table: a mount whose server is away can fail a
		# stat, and mountpoint(1) with it)
		if grep -q " $d/$m fuse" /proc/self/mounts; then
			timeout 30 umount "$d/$m" 2>/dev/null || umount -l "$d/$m"
		fi
	done
	for p in $clients; do stop "$p"; done
	for n in mds.a osd.0 mgr.x mon.a; do
		p=$(pidof_ "$d" "$n")
		[ -z "$p" ] || stop "$p"
	done
	rm -rf "$d"
}

# pidof_ DIR NAME: the pid in NAME's pid file, if that process lives.
pidof_() {
	p=$(cat "$1/run/$2.pid" 2>/dev/null) || return 0
	case $p in '' | *[!0-9]*) return 0 ;; esac
	! kill -0 "$p" 2>/dev/null || echo "$p"
}

kill_daemon() {
	kill_gone "$(pidof_ "$1" "$2")" "$2"
}

# mount DIR M: mount client.M's view at DIR/M (ceph-fuse, its defaults,
# but the truth's without the object cache: conf's client.t).
mount_client() {
	ceph-fuse -c "$1/ceph.conf" -n "client.$2" "$1/$2" \
	    >"$1/log/mount-$2.out" 2>&1 ||
	    { cat "$1/log/mount-$2.out" >&2; return 1; }
	wait_for 30 grep -q " $1/$2 fuse" /proc/self/mounts ||
	    { echo "$1/$2 is not mounted" >&2; return 1; }
}

start_again() {
	[ -z "$(pidof_ "$1" "$2")" ] || { echo "$2 is running" >&2; return 1; }
	case $2 in
	client.*)
		# A client killed leaves its mount there, every call on it
		# failing (ENOTCONN): taken away, then made again.
		umount -l "$1/${2#client.}" 2>/dev/null
		mount_client "$1" "${2#client.}"
		return ;;
	esac
	rm -f "$1/run/$2.asok"
	start_daemon "$1" "$2" || return 1
	wait_for 120 serving "$1" "$2" || { echo "$2 does not serve again" >&2; return 1; }
}

case ${1-} in
why) why ;;
up) why >&2 && up "$2" ;;
down) down "$2" ;;
kill) kill_daemon "$2" "${3:-osd.0}" ;;
start) start_again "$2" "${3:-osd.0}" ;;
*) echo "usage: cephfs.sh up DIR | down DIR | kill DIR [DAEMON] | start DIR [DAEMON] | why" >&2; exit 2 ;;
esac
