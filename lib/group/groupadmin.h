/* groupadmin.h: what an operator's tools do to a group (tmq-group,
 * tmq-commit, tmq-topic delete --with-groups): load it with its topic,
 * start a rebalance, plan a reset of its offsets, check that no member
 * is active, and delete it. */
#ifndef TMQ_GROUPADMIN_H
#define TMQ_GROUPADMIN_H

#include <stdint.h>

#include "group/group.h"
#include "group/groupinfo.h"
#include "flow/position.h"
#include "store/topic.h"

/* Open the group name (topic_hint as for tmq_group_open), replay its log
 * and settle it (tmq_group_settle): the state an observer reports.  The
 * lines replay skips are said as notices (notice.h).  On failure nothing
 * is left open. */
int tmq_group_observe(int rootfd, const char *name, const char *topic_hint,
    struct tmq_group *g, struct tmq_error *e);

/* Open the topic the group reads, into t; it fails, saying so, when the
 * group does not record it (groups the TwainMQ library made name it only
 * in their members: -t names it then). */
int tmq_group_open_topic(int rootfd, const struct tmq_group *g,
    struct tmq_topic *t, struct tmq_error *e);

/* Begin a rebalance that its members have seconds to answer. */
int tmq_group_begin_rebalance(struct tmq_group *g, double seconds,
    struct tmq_error *e);

/* As kafka-consumer-groups: a group is changed (reset, deleted) only
 * while no member is active, or when forced.  Fails when active > 0,
 * with "NAME: N members are active: stop them or use --force". */
int tmq_group_check_idle(const char *name, unsigned active,
    struct tmq_error *e);

/* The members that may be running in the group name, that a delete would
 * pull the log from under: 0 for what a killed create or delete left of
 * a group (no group, no members); else the group is loaded to count
 * them. */
int tmq_group_delete_active(int rootfd, const char *name, unsigned *active,
    struct tmq_error *e);
/* Delete the group name (its log, the topic --group--NAME), as
 * tmq_topic_delete: 0 deleted, -1 not, 1 deleted with something left (e
 * says what). */
int tmq_group_delete(int rootfd, const char *name, struct tmq_error *e);

/* The new offsets of a reset, one per partition of sel (n of them; sel
 * NULL: every partition of the topic, n its count), into po[n]: from the
 * committed offset (or, with to, from the offset to names: start, now,
 * an offset, N before the end, the first message at or after a time),
 * moved by shift, and clamped to what is on disk, as Kafka does.  A
 * partition the group has not committed starts from the first offset on
 * disk; one committed "now" from the end.  Every partition of sel must
 * exist in the topic ("NAME: ..." otherwise).  Only a time reads the
 * topic's files. */
int tmq_reset_plan(const char *name, const struct tmq_topic *t,
    const struct tmq_ginfo *gi, const unsigned *sel, unsigned n,
    const struct tmq_position *to, int64_t shift, struct tmq_poff *po,
    struct tmq_error *e);

/* With describe --max-lag N: fails, saying why, when partition p of the
 * group lags by more than maxlag, or its committed offset is out of range
 * (which counts as lagging, whatever N). */
int tmq_ginfo_check_lag(const char *name, const struct tmq_ginfo *gi,
    unsigned p, uint64_t maxlag, struct tmq_error *e);

#endif
