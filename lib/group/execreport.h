/* execreport.h: what a member running a command per message (tmq-get
 * --exec) tells operators, pure: the commands it has started, retried and
 * dead-lettered since it joined, and the messages running now, as text in
 * its lock file after the session line (tmq-format(5), live.TAG), which
 * tmq-group describe and list --prometheus read (liveness.c holds the
 * file's I/O).  The text:
 *
 *   exec RUN RETRIED DEAD
 *   run PARTITION OFFSET ATTEMPT STARTED     (one a message running)
 *   end
 *
 * numbers in decimal, STARTED in Unix seconds with 3 decimals.  A view,
 * rewritten in place as the member goes: a reader takes it only whole and
 * exactly so (up to its "end" line), else as none. */
#ifndef TMQ_EXECREPORT_H
#define TMQ_EXECREPORT_H

#include <stddef.h>
#include <stdint.h>

/* The most running messages a report holds (--jobs's bound). */
#define TMQ_XREPORT_MAX_RUNS 4096
/* The longest text of a report. */
#define TMQ_XREPORT_MAX_TEXT (64 + TMQ_XREPORT_MAX_RUNS * 80)

struct tmq_xrun {
	unsigned partition;
	uint64_t offset;
	unsigned attempt;		/* from 1 */
	double started;			/* Unix seconds */
};

struct tmq_xreport {
	uint64_t run, retried, dead;	/* since the member joined */
	struct tmq_xrun *v;		/* the messages running */
	size_t n;
};

/* r as text in buf (cap bytes): its length, or 0 when it does not fit. */
size_t tmq_xreport_format(const struct tmq_xreport *r, char *buf, size_t cap);
/* The report in text (len bytes, not NUL-terminated): 1 and r (r->v
 * malloc'ed, NULL when none run), 0 when text holds none that is whole and
 * exactly so, -1 when out of memory. */
int tmq_xreport_parse(const char *text, size_t len, struct tmq_xreport *r);
void tmq_xreport_free(struct tmq_xreport *r);

#endif
