/* prune.h: retention: removing (or archiving) whole old day files. */
#ifndef TMQ_PRUNE_H
#define TMQ_PRUNE_H

#include <stdint.h>

#include "util/error.h"
#include "store/partfile.h"
#include "store/topic.h"

struct tmq_prune_opts {
	unsigned before_day;	/* YYYYMMDD: files of days before it go */
	const char *archive;	/* move them into this root (DIR/TOPIC/) instead */
	int dry_run;
	/* Asked of each file that would go, before it goes, with the offset
	 * after its last line (the next file's first): nonzero keeps it.
	 * May be NULL. */
	int (*keep)(void *arg, const struct tmq_pfile *pf, uint64_t end);
	/* Called for each file pruned (or that would be). */
	void (*each)(void *arg, const struct tmq_pfile *pf);
	void *arg;
};

/* Prune t.  The newest file of each partition always stays, so producers
 * (which only append to the newest) and offsets are never disturbed:
 * offsets are in the names of the files that remain.  A group's log is
 * refused.  Into an archive (prune.c), files are only ever added, each
 * whole, and a killed prune's rerun finishes it; an archive that cannot
 * take them all (another definition, a file of the name with other
 * messages, offsets it has already) is refused, nothing moved. */
int tmq_prune(const struct tmq_topic *t, const struct tmq_prune_opts *o,
    struct tmq_error *e);

#endif
