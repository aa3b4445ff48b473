/* dotdir.h: the dot-folder of a topic's directory, where tmq keeps the
 * files of its own (tmq-format(5), Files of tmq's own): a group's member
 * locks, its fixed-partition lock, its snapshots and its recorded topic; a
 * topic's partition indexes and tmq-put --follow's state; an archive's
 * lock.  The TwainMQ library never looks there for partition files.
 * Opened here, one way, by all. */
#ifndef TMQ_DOTDIR_H
#define TMQ_DOTDIR_H

#include "util/error.h"

#define TMQ_DOT_DIR ".tmq"

/* Open dirfd's .tmq, never through a symbolic link (beneath.h), making it
 * first when create is set, with the modes a directory made in dirfd gets
 * (modes.h): the descriptor, or -1 (errno kept: ENOENT when there is
 * none). */
int tmq_dot_open(int dirfd, int create);
/* After tmq_dot_open failed: -1 with e saying why, naming the folder
 * shown ("SHOWN is a symbolic link (not followed)", ...: regfile.h). */
int tmq_dot_fail(int dirfd, const char *shown, struct tmq_error *e);

#endif
