#!/usr/bin/env bats
# t0741-cephfs: the shared-filesystem scenarios (tests/shared.bash) on
# CephFS, a one-node Ceph cluster on 127.0.0.1 mounted twice by ceph-fuse
# to stand for two machines (tests/cephfs.sh brings it up and takes it
# down); a third client without the object cache reads the truth.  Not
# part of `make check` (it needs root, /dev/fuse and Debian's Ceph
# packages): `make check-shared` runs it (TMQ_SHARED_FS=ceph or all), and
# CI does.

ENGINE=ceph
load shared

@test "producers on both mounts, a follower on each: each sees what the server holds ($RUNS runs)" {
	shared_followers
}

@test "a partition index made on one mount serves the other, and every answer is the server's" {
	shared_index
}

@test "a group with a member on each mount, producers on both: every record delivered once, none again at a rebalance ($RUNS runs)" {
	shared_group
}

@test "a reader frozen on one mount, inside a read or stopped, producers on both: none waits ($RUNS runs)" {
	shared_frozen
}

@test "the server away for a while: a follower and a member wait, and go on where they were" {
	shared_server_away
}

@test "the metadata server killed and started again under a producer, a follower and a member: no record lost, they go on" {
	shared_mds_away
}

@test "a follower's own mount killed and mounted again: it goes on where it was, and says so" {
	shared_remount
}

@test "a listing of the topic that fails on the mount (EIO): a follower waits it out as an outage and goes on where it was" {
	shared_eio
}

@test "a producer killed with SIGKILL mid-run: no merged line, the others' records all there" {
	shared_sigkill
}

@test "throughput on the shared filesystem next to local disk" {
	shared_throughput
}
