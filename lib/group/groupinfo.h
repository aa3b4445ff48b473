/* groupinfo.h: a group as an operator sees it: its members, and per
 * partition the committed offset, the end, the lag and the owner. */
#ifndef TMQ_GROUPINFO_H
#define TMQ_GROUPINFO_H

#include <stdint.h>

#include "group/execreport.h"
#include "group/group.h"
#include "group/liveness.h"
#include "group/offsetrange.h"
#include "store/topic.h"

struct tmq_gpart {
	unsigned partition;
	int64_t committed;	/* TMQ_NOT_COMMITTED, -1 (now), or offset */
	uint64_t first, end;	/* first offset on disk, end offset */
	uint64_t lag;		/* from the first offset when out of range */
	enum tmq_range range;	/* committed offset past end or before first */
	int has_owner;
	uint32_t owner;
	char *problem;		/* why its files could not be read (first,
				 * end and lag are then 0), or NULL */
	char *damage;		/* the holes in its files (topicstat.h; its
				 * figures stand), or NULL */
};

struct tmq_ginfo {
	struct tmq_gpart *parts;	/* one per partition of the topic */
	unsigned nparts;
	uint64_t total_lag;
	unsigned nmembers;		/* members holding a share */
	uint32_t *members;		/* their ids, ascending */
	enum tmq_liveness *alive;	/* each one's lock, probed */
	/* Each live one's report, when it runs a command per message
	 * (execreport.h): has_report[i] says whether reports[i] is one. */
	struct tmq_xreport *reports;
	unsigned char *has_report;
	unsigned nreports;		/* members with a report */
	unsigned ndead;			/* of them, known dead */
	unsigned nproblems;		/* partitions with a problem */
	unsigned ndamaged;		/* partitions with a damage */
};

/* Compute from a replayed group and its topic. */
int tmq_ginfo_build(const struct tmq_group *g, const struct tmq_topic *t,
    struct tmq_ginfo *gi, struct tmq_error *e);
void tmq_ginfo_free(struct tmq_ginfo *gi);

/* How many of the members tmq_ginfo_build would list are not known dead:
 * those that may be running (without the topic, for delete). */
unsigned tmq_group_active(const struct tmq_group *g);

#endif
