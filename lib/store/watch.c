/* watch.c: sleeping until something changes (see watch.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "store/fstype.h"
#include "store/watch.h"

/* A directory's entries and the files in it, or a file itself: its
 * writes (IN_MODIFY), a truncation or a new owner (IN_ATTRIB), and its
 * rename or removal. */
#define MASK (IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_MOVED_TO | \
	IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

int
tmq_watch_init(struct tmq_watch *w, struct tmq_error *e)
{
	const char *env = getenv("TMQ_FOLLOW");

	memset(w, 0, sizeof *w);
	w->ifd = -1;
	/* Refused as the readers refuse it: a misspelt "poll" must not leave
	 * a wait on inotify for writers it cannot see. */
	if (env != NULL && *env != '\0' && strcmp(env, "auto") != 0 &&
	    strcmp(env, "poll") != 0)
		return tmq_fail(e, "TMQ_FOLLOW='%s': want auto or poll", env);
	w->poll_only = env != NULL && strcmp(env, "poll") == 0;
	return 0;
}

int
tmq_watch_add(struct tmq_watch *w, int fd, struct tmq_error *e)
{
	char path[64];

	(void)e;
	if (w->poll_only)
		return 0;
	if (tmq_fs_is_remote(fd)) {
		w->poll_only = 1;
		return 0;
	}
	if (w->ifd < 0 &&
	    (w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		w->poll_only = 1;
		return 0;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (inotify_add_watch(w->ifd, path, MASK) < 0)
		w->poll_only = 1;
	return 0;
}

void
tmq_watch_clear(struct tmq_watch *w)
{
	if (w->ifd >= 0)
		close(w->ifd);
	w->ifd = -1;
}

int
tmq_watch_wait(struct tmq_watch *w, int timeout_ms, struct tmq_error *e)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p;
	ssize_t n;
	int rc, any = 0;

	if (w->poll_only || w->ifd < 0) {
		if (timeout_ms < 0 || timeout_ms > TMQ_WATCH_POLL_MS)
			timeout_ms = TMQ_WATCH_POLL_MS;
		poll(NULL, 0, timeout_ms);
		return 1;
	}
	p.fd = w->ifd;
	p.events = POLLIN;
	rc = poll(&p, 1, timeout_ms);
	if (rc < 0 && errno != EINTR)
		return tmq_fail_errno(e, "poll");
	/* The events themselves say nothing the caller does not look at
	 * again: drain them. */
	while ((n = read(w->ifd, buf, sizeof buf)) > 0)
		any = 1;
	return any || rc < 0;
}

void
tmq_watch_close(struct tmq_watch *w)
{
	tmq_watch_clear(w);
	w->poll_only = 0;
}
