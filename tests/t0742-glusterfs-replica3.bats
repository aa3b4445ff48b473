#!/usr/bin/env bats
# t0742-glusterfs-replica3: the shared-filesystem scenarios
# (tests/shared.bash) on a replica 3 GlusterFS volume, three bricks each a
# whole copy, as production volumes are made (their bricks beside each
# other here, on 127.0.0.2), mounted twice to stand for two machines; the
# first brick's files are the truth.  Beside t0740's one brick: one
# replica lost mid-run while the other two serve, which nobody notices
# beyond a delay.  Not part of `make check` (root, /dev/fuse, glusterd):
# `make check-shared` runs it (TMQ_SHARED_FS=gluster or all), and CI does.

export TMQ_GLUSTER_REPLICA=3
ENGINE=gluster
load shared

@test "replica 3: producers on both mounts, a follower on each: each sees what the server holds ($RUNS runs)" {
	shared_followers
}

@test "replica 3: a partition index made on one mount serves the other, and every answer is the server's" {
	shared_index
}

@test "replica 3: a group with a member on each mount, producers on both: every record delivered once, none again at a rebalance ($RUNS runs)" {
	shared_group
}

@test "replica 3: a reader frozen on one mount, inside a read or stopped, producers on both: none waits ($RUNS runs)" {
	shared_frozen
}

@test "replica 3: one brick of three killed mid-run and started again, under producers, a follower and a member: nobody notices beyond a delay" {
	shared_replica_lost
}

@test "replica 3: every brick away for a while: a follower and a member wait, and go on where they were" {
	shared_server_away
}

@test "replica 3: a follower's own mount killed and mounted again: it goes on where it was, and says so" {
	shared_remount
}

@test "replica 3: a listing of the topic that fails on the mount (EIO): a follower waits it out as an outage and goes on where it was" {
	shared_eio
}

@test "replica 3: a producer killed with SIGKILL mid-run: no merged line, the others' records all there" {
	shared_sigkill
}

@test "replica 3: throughput on the shared filesystem next to local disk" {
	shared_throughput
}
