/* t-liveness.c: lib/group/liveness, member locks (OFD locks on .tmq/live.TAG)
 * and what a rebalance waits for.  A held lock probes alive, in this
 * process too; a lock whose holder was killed probes dead; no file is a
 * member we cannot vouch for; forget removes dead files only; and a
 * rebalance waits for the living past its window, for unvouched members
 * until its window ends, and never for the dead or those that left.  A
 * FIFO, directory or link planted as a member's file is a member we
 * cannot vouch for (never dead, and no probe waits on it), said once.  A
 * hold leaves no temporary beside the file, and refuses a name that is
 * there; the sweep removes the temporaries (and an older tmq's new.TAG)
 * that killed members left, a minute old and unlocked, and no other.
 * What a co-user cannot forge: a lock file is writable by its owner
 * alone; a read lock on a dead member's file (anyone's) is no member's;
 * a held lock on a file others may write vouches for nobody; a watch
 * counts a member whose file became another as gone; and a rebalance's
 * probes go only to the members whose files are there. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "group/groupstate.h"
#include "group/liveness.h"
#include "tap.h"

static int
file_there(int dirfd, uint64_t tag)
{
	char name[64];

	snprintf(name, sizeof name, ".tmq/live.%016llx",
	    (unsigned long long)tag);
	return faccessat(dirfd, name, F_OK, 0) == 0;
}

/* A child that takes the lock for tag, then waits to be killed. */
static pid_t
holder(int dirfd, uint64_t tag)
{
	struct tmq_error e;
	int p[2], fd;
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (tmq_live_hold(dirfd, tag, 0, &fd, &e) < 0)
			_exit(1);
		(void)!write(p[1], "x", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

/* Both steps of a sweep, on a state that is the log's (as a member does
 * once it has read to the end). */
static void
sweep(const struct tmq_live_where *w, const struct tmq_gstate *s)
{
	uint64_t *tags;
	size_t n;

	if (tmq_live_dead(w->logdirfd, &tags, &n) == 0) {
		tmq_live_sweep(w, s, tags, n);
		free(tags);
	}
}

/* Members take their locks while another process sweeps without pause:
 * each must hold a lock on the file under its name when tmq_live_hold
 * returns, never one on a file the sweep removed meanwhile (which would
 * make it a member nobody can see die).  Returns how many did not. */
static int
hold_while_sweeping(int dirfd, int rounds)
{
	struct tmq_live_where w;
	struct tmq_gstate s;
	struct tmq_error e;
	int i, fd, bad = 0;
	pid_t pid;

	memset(&w, 0, sizeof w);
	w.logdirfd = dirfd;
	tmq_gstate_init(&s, 4);
	if ((pid = fork()) == 0)
		for (;;)
			sweep(&w, &s);
	for (i = 0; i < rounds; i++) {
		uint64_t tag = 0x5000 + (uint64_t)i;

		if (tmq_live_hold(dirfd, tag, 0, &fd, &e) < 0 || fd < 0 ||
		    tmq_live_probe(dirfd, tag) != TMQ_LIVE_YES)
			bad++;
		tmq_live_release(dirfd, tag, fd);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return bad;
}

/* Plant .tmq/NAME in dirfd, a minute and more old when old is set. */
static void
plant(int dirfd, const char *name, int old)
{
	struct timespec t[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char path[128];
	int fd;

	snprintf(path, sizeof path, ".tmq/%s", name);
	fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1)
		exit(99);
	close(fd);
	if (old)
		utimensat(dirfd, path, t, 0);
}

static int
there(int dirfd, const char *name)
{
	char path[128];

	snprintf(path, sizeof path, ".tmq/%s", name);
	return faccessat(dirfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Entries of dirfd's .tmq whose names end in .tmp: how many. */
static int
temporaries(int dirfd)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(dirfd, ".tmq", O_RDONLY | O_DIRECTORY), n = 0;
	size_t len;

	if (fd < 0 || (d = fdopendir(fd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if ((len = strlen(de->d_name)) > 4 &&
		    strcmp(de->d_name + len - 4, ".tmp") == 0)
			n++;
	closedir(d);
	return n;
}

static char said[4][512];
static int nsaid;

static void
notice(void *arg, const char *msg)
{
	(void)arg;
	if (nsaid < 4)
		snprintf(said[nsaid], sizeof said[nsaid], "%s", msg);
	nsaid++;
}

static struct tmq_gmember *
add_member(struct tmq_gstate *s, uint32_t id, uint64_t tag, uint64_t last)
{
	struct tmq_gmember *m = tmq_gstate_member(s, id);

	m->claimed = 1;
	m->tag = tag;
	m->last_offset = last;
	return m;
}

/* An offer (or a share) made by hand, in s's arrays and indexes. */
static void
add_offer(struct tmq_gstate *s, struct tmq_offer **o, unsigned *n, uint32_t id,
    unsigned nparts, unsigned ngot)
{
	struct tmq_error e;

	*o = realloc(*o, (*n + 1) * sizeof **o);
	memset(&(*o)[*n], 0, sizeof **o);
	(*o)[*n].member = id;
	(*o)[*n].nparts = nparts;
	(*o)[*n].ngot = ngot;
	(*n)++;
	if (tmq_gstate_reindex(s, &e) < 0)
		diag("reindex: %s", e.msg);
}

int
main(void)
{
	char dir[] = "/tmp/t-liveness.XXXXXX";
	char gname[] = "G", logname[] = "--group--G";
	struct tmq_error e;
	struct tmq_live_where w;
	struct tmq_gstate g;
	struct flock fl;
	unsigned alive, unknown;
	int dirfd, fd, fd2, fd3;
	pid_t pid;

	if (mkdtemp(dir) == NULL || (dirfd = open(dir, O_RDONLY |
	    O_DIRECTORY)) < 0) {
		skip("no temporary directory");
		return done_testing();
	}

	is_int(tmq_live_probe(dirfd, 1), TMQ_LIVE_UNKNOWN, "no file: unknown");
	is_int(tmq_live_hold(dirfd, 1, 0, &fd, &e), 0, "hold");
	ok(fd >= 0, "the filesystem has OFD locks");
	is_int(tmq_live_probe(dirfd, 1), TMQ_LIVE_YES,
	    "held in this process: alive");
	tmq_live_forget(dirfd, 1);
	ok(file_there(dirfd, 1), "forget leaves a live member's file");

	pid = holder(dirfd, 2);
	ok(pid > 0, "a child holds tag 2");
	is_int(tmq_live_probe(dirfd, 2), TMQ_LIVE_YES, "child holding: alive");
	kill(pid, SIGSTOP);
	is_int(tmq_live_probe(dirfd, 2), TMQ_LIVE_YES,
	    "child stopped: still alive");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	is_int(tmq_live_probe(dirfd, 2), TMQ_LIVE_DEAD, "child killed: dead");
	{
		struct stat st;
		struct flock rl;
		int rfd = openat(dirfd, ".tmq/live.0000000000000002", O_RDONLY);

		ok(fstatat(dirfd, ".tmq/live.0000000000000002", &st, 0) == 0 &&
		    (st.st_mode & 07777) == 0644, "a lock file is 0644");
		memset(&rl, 0, sizeof rl);
		rl.l_type = F_RDLCK;
		rl.l_whence = SEEK_SET;
		ok(rfd >= 0 && fcntl(rfd, F_OFD_SETLK, &rl) == 0,
		    "anyone may read-lock a dead member's file");
		is_int(tmq_live_probe(dirfd, 2), TMQ_LIVE_DEAD,
		    "a read lock holds no member alive");
		close(rfd);
		/* A write lock on a file others may write: anyone's. */
		ok(fchmodat(dirfd, ".tmq/live.0000000000000001", 0664, 0) == 0,
		    "1's file made group-writable");
		is_int(tmq_live_probe(dirfd, 1), TMQ_LIVE_UNKNOWN,
		    "held, but writable by others: unvouched");
		ok(fchmodat(dirfd, ".tmq/live.0000000000000001", 0644, 0) == 0,
		    "1's file made 0644 again");
		is_int(tmq_live_probe(dirfd, 1), TMQ_LIVE_YES, "0644 again: alive");
	}

	/* A rebalance: we are 1; 2 died holding partitions; 3 is a live
	 * member not yet offering; 4 is unvouched, heard from since the last
	 * rebalance; 5 is unvouched and gone (no share, not heard from); 6
	 * left (its last offer took nothing). */
	tmq_gstate_init(&g, 4);
	memset(&w, 0, sizeof w);
	w.logdirfd = dirfd;
	is_int(tmq_live_hold(dirfd, 3, 0, &fd3, &e), 0, "hold 3");
	add_member(&g, 1, 1, 20);
	add_member(&g, 2, 2, 5);
	add_member(&g, 3, 3, 5);
	add_member(&g, 4, 4, 15);
	add_member(&g, 5, 5, 3);
	add_member(&g, 6, 6, 18)->left = 1;
	g.have_assignment = 1;
	g.ended_offset = 10;
	add_offer(&g, &g.assigned, &g.nassigned, 2, 4, 2);
	add_offer(&g, &g.assigned, &g.nassigned, 3, 4, 2);
	g.rebalancing = 1;
	g.rebal_end = 1000.0;
	add_offer(&g, &g.offers, &g.noffers, 1, 4, 0);
	tmq_live_pending(&w, &g, 1, 1, &alive, &unknown);
	is_int((int)alive, 1, "pending alive: 3");
	is_int((int)unknown, 1, "pending unknown: 4");
	ok(!tmq_live_may_end(&w, &g, 1, 1, 999.0, g.rebal_end), "not before 3 and 4 offer");
	ok(!tmq_live_may_end(&w, &g, 1, 1, 2000.0, g.rebal_end),
	    "past the window: still waiting for the living 3");
	add_offer(&g, &g.offers, &g.noffers, 3, 4, 0);
	ok(!tmq_live_may_end(&w, &g, 1, 1, 999.0, g.rebal_end),
	    "3 offered: 4 has until the window ends");
	ok(tmq_live_may_end(&w, &g, 1, 1, 1000.0, g.rebal_end), "window over: 4 is cut off");
	ok(tmq_live_may_end(&w, &g, 1, 1, 500.0, 500.0),
	    "an end the group's rule puts sooner: 4 is cut off then");
	tmq_live_pending(&w, &g, 0, 0, &alive, &unknown);
	ok(alive == 0 && unknown == 1, "an observer (no self) waits for 4 too");
	add_offer(&g, &g.offers, &g.noffers, 4, 4, 0);
	ok(tmq_live_may_end(&w, &g, 1, 1, 0.0, g.rebal_end), "everyone offered: end at once");

	/* After the rebalance, 2's file goes; 1 and 3 keep theirs. */
	free(g.assigned);
	g.assigned = NULL;
	g.nassigned = 0;
	add_offer(&g, &g.assigned, &g.nassigned, 1, 4, 2);
	add_offer(&g, &g.assigned, &g.nassigned, 3, 4, 2);
	sweep(&w, &g);
	ok(!file_there(dirfd, 2), "sweep removed the dead member's file");
	ok(file_there(dirfd, 1) && file_there(dirfd, 3),
	    "and kept the living");

	/* A dead member's file stays while it may hold partitions: 7 holds
	 * some in the last rebalance, 8 offered in the one under way, 9 was
	 * heard from since the last one ended (it joined, then died); 10
	 * never claimed its id (it died before its JOINED) and goes. */
	{
		pid_t k;
		uint64_t t;

		for (t = 7; t <= 10; t++) {
			k = holder(dirfd, t);
			kill(k, SIGKILL);
			waitpid(k, NULL, 0);
		}
	}
	add_member(&g, 7, 7, 5);
	add_member(&g, 8, 8, 5);
	add_member(&g, 9, 9, 12);
	add_offer(&g, &g.assigned, &g.nassigned, 7, 4, 1);
	add_offer(&g, &g.offers, &g.noffers, 8, 4, 0);
	sweep(&w, &g);
	ok(file_there(dirfd, 7), "sweep keeps a dead holder's file: the "
	    "others must see it die to move its partitions");
	ok(file_there(dirfd, 8), "and one that offered in the rebalance "
	    "under way");
	ok(file_there(dirfd, 9), "and one heard from since the last rebalance");
	ok(!file_there(dirfd, 10), "an id never claimed: the file goes");
	g.assigned[g.nassigned - 1].ngot = 0;
	g.rebalancing = 0;
	g.ended_offset = 20;
	sweep(&w, &g);
	ok(!file_there(dirfd, 7) && !file_there(dirfd, 8) &&
	    !file_there(dirfd, 9), "once they hold nothing, all three go");

	/* A watch that saw 20's own file counts a file put in its place,
	 * locked and beating, as another's: 20 is gone for good.  A probe
	 * without the watch cannot tell. */
	{
		struct tmq_live_watch wt;
		struct tmq_live_where ww = w;
		struct flock wl;
		int ours;
		pid_t k = holder(dirfd, 20);

		memset(&wt, 0, sizeof wt);
		wt.timeout = 30;
		ww.watch = &wt;
		add_member(&g, 20, 20, 30);
		is_int(tmq_live_member(&ww, &g, 20), TMQ_LIVE_YES,
		    "20 held: alive to the watch");
		kill(k, SIGKILL);
		waitpid(k, NULL, 0);
		ours = openat(dirfd, ".tmq/ours", O_RDWR | O_CREAT, 0644);
		memset(&wl, 0, sizeof wl);
		wl.l_type = F_WRLCK;
		wl.l_whence = SEEK_SET;
		ok(ours >= 0 && fcntl(ours, F_OFD_SETLK, &wl) == 0 &&
		    renameat(dirfd, ".tmq/ours", dirfd,
		    ".tmq/live.0000000000000014") == 0,
		    "another file, locked, in 20's place");
		is_int(tmq_live_member(&ww, &g, 20), TMQ_LIVE_STALE,
		    "the watch sees it is not 20's: gone");
		(void)futimens(ours, NULL);
		is_int(tmq_live_member(&ww, &g, 20), TMQ_LIVE_STALE,
		    "and beating changes nothing");
		is_int(tmq_live_probe(dirfd, 20), TMQ_LIVE_YES,
		    "a probe without the watch cannot tell");
		unlinkat(dirfd, ".tmq/live.0000000000000014", 0);
		close(ours);
		tmq_live_watch_free(&wt);
	}

	is_int(hold_while_sweeping(dirfd, 3000), 0,
	    "a lock taken while another process sweeps is always on the "
	    "file under its name");

	/* Planted where members' files go: 11 a FIFO, 12 a directory, 13 a
	 * link to a file nobody locks.  (A probe that waited on the FIFO
	 * would be ended by the alarm, and the test with it.) */
	alarm(30);
	{
		int tmq = openat(dirfd, ".tmq", O_RDONLY | O_DIRECTORY);

		ok(mkfifoat(tmq, "live.000000000000000b", 0644) == 0 &&
		    mkdirat(tmq, "live.000000000000000c", 0755) == 0 &&
		    close(openat(tmq, "decoy", O_WRONLY | O_CREAT, 0644)) == 0 &&
		    symlinkat("decoy", tmq, "live.000000000000000d") == 0,
		    "planted a FIFO, a directory and a link");
		close(tmq);
	}
	add_member(&g, 11, 11, 25);
	add_member(&g, 12, 12, 25);
	add_member(&g, 13, 13, 25);
	w.group = gname;
	w.logname = logname;
	w.notice = notice;
	is_int(tmq_live_member(&w, &g, 11), TMQ_LIVE_UNKNOWN, "a FIFO: unknown");
	is_int(tmq_live_member(&w, &g, 11), TMQ_LIVE_UNKNOWN, "again");
	is_int(tmq_live_member(&w, &g, 12), TMQ_LIVE_UNKNOWN,
	    "a directory: unknown, not dead");
	is_int(tmq_live_member(&w, &g, 13), TMQ_LIVE_UNKNOWN,
	    "a link to an unlocked file: unknown, not dead");
	is_int(nsaid, 3, "each said once");
	is_str(said[0], "group G: --group--G/.tmq/live.000000000000000b: not a "
	    "regular file (a FIFO): member 11 cannot be vouched for", "the FIFO");
	is_str(said[1], "group G: --group--G/.tmq/live.000000000000000c: not a "
	    "regular file (a directory): member 12 cannot be vouched for",
	    "the directory");
	is_str(said[2], "group G: --group--G/.tmq/live.000000000000000d: a "
	    "symbolic link, not followed: member 13 cannot be vouched for",
	    "the link");
	sweep(&w, &g);
	ok(file_there(dirfd, 11) && file_there(dirfd, 12) &&
	    file_there(dirfd, 13), "the sweep leaves them");
	is_int(tmq_live_hold(dirfd, 11, 0, &fd2, &e), -1,
	    "no lock is held on a FIFO");
	is_str(e.msg, ".tmq/live.000000000000000b: not a regular file (a FIFO)",
	    "... and the hold says why");
	is_int(e.code, TMQ_ERR_FILEKIND, "... with the code for it");
	alarm(0);
	w.notice = NULL;
	w.group = NULL;
	w.logname = NULL;

	/* The temporary and the name. */
	is_int(tmq_live_hold(dirfd, 20, 12.5, &fd2, &e), 0, "hold 20");
	ok(fd2 >= 0 && tmq_live_probe(dirfd, 20) == TMQ_LIVE_YES, "  alive");
	ok(tmq_live_timeout_of(dirfd, 20) == 12.5, "  its timeout written");
	is_int(temporaries(dirfd), 0, "  no temporary left beside it");
	tmq_live_release(dirfd, 20, fd2);
	plant(dirfd, "live.0000000000000015", 0);
	is_int(tmq_live_hold(dirfd, 21, 0, &fd2, &e), -1,
	    "a file under the name: not replaced");
	is_str(e.msg, ".tmq/live.0000000000000015: exists already",
	    "... and the hold says so");
	is_int(temporaries(dirfd), 0, "  and leaves no temporary");
	is_int(fd2, -1, "  and holds nothing");
	unlinkat(dirfd, ".tmq/live.0000000000000015", 0);

	/* What killed members left. */
	plant(dirfd, ".live.0000000000000016.99.00ab.tmp", 1);
	plant(dirfd, "new.0000000000000017", 1);
	plant(dirfd, ".live.0000000000000018.98.00ab.tmp", 0);
	plant(dirfd, ".live.0000000000000019.97.00ab.tmp", 1);
	plant(dirfd, "new.00000000000001", 1);
	fd2 = openat(dirfd, ".tmq/.live.0000000000000019.97.00ab.tmp", O_RDWR);
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	ok(fd2 >= 0 && fcntl(fd2, F_OFD_SETLK, &fl) == 0, "a temporary locked");
	sweep(&w, &g);
	ok(!there(dirfd, ".live.0000000000000016.99.00ab.tmp"),
	    "the sweep removes an old unlocked temporary");
	ok(!there(dirfd, "new.0000000000000017"), "  and an older tmq's new.TAG");
	ok(there(dirfd, ".live.0000000000000018.98.00ab.tmp"),
	    "  not a young one");
	ok(there(dirfd, ".live.0000000000000019.97.00ab.tmp"),
	    "  not a locked one");
	ok(there(dirfd, "new.00000000000001"), "  not another name");
	close(fd2);
	unlinkat(dirfd, ".tmq/.live.0000000000000018.98.00ab.tmp", 0);
	unlinkat(dirfd, ".tmq/.live.0000000000000019.97.00ab.tmp", 0);
	unlinkat(dirfd, ".tmq/new.00000000000001", 0);

	tmq_live_release(dirfd, 1, fd);
	ok(!file_there(dirfd, 1), "release removes the file");
	is_int(tmq_live_probe(dirfd, 1), TMQ_LIVE_UNKNOWN, "released: unknown");
	tmq_live_release(dirfd, 3, fd3);
	tmq_gstate_free(&g);
	rmdir(dir);	/* .tmq stays: best effort */
	return done_testing();
}
