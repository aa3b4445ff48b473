/* fswait.h: a reader's calls into a file system that may block without
 * failing, watched, so that the reader says it is waiting rather than
 * nothing at all.
 *
 * ceph-fuse fails no call while an OSD that holds the data is away, nor
 * while another client's dirty data cannot be flushed to it: a reader sits
 * in pread, or in the stat of a topic's definition, for as long as the OSD
 * is gone (minutes, or for ever), with no error for tmq to report.  Once
 * tmq_fswait_watch has been called (for a root on a network filesystem),
 * the reader's work on the file system is marked, between
 * tmq_fswait_begin and tmq_fswait_end (a store each: no clock, no system
 * call), and a thread of its own looks every second; when the reader has
 * been inside one mark for TMQ_FSWAIT_SAY seconds it says, once, as a
 * notice (notice.h):
 *
 *     ROOT: waiting on the file system: no answer for 5 s
 *
 * and when it comes out
 *
 *     ROOT: the file system answered after N s
 *
 * A mark holds only calls into the file system, never a wait of tmq's own
 * (for more to read, for a lock, for the reader of its output).  One thread
 * marks (the readers'); marks do not nest. */
#ifndef TMQ_FSWAIT_H
#define TMQ_FSWAIT_H

#define TMQ_FSWAIT_SAY 5	/* seconds inside a mark before it is said */

/* Watch from now on, naming the root whose descriptor is rootfd (its path
 * as the kernel gives it, which asks nothing of the file system).  The
 * first call starts the watch; later ones do nothing. */
void tmq_fswait_watch(int rootfd);
void tmq_fswait_begin(void);
void tmq_fswait_end(void);

#endif
