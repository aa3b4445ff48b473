/* root.h: finding the root directory that holds topics and groups. */
#ifndef TMQ_ROOT_H
#define TMQ_ROOT_H

#include "util/error.h"

/* The root: opt (-d/--root) if set, else $TMQ_ROOT, else
 * ${XDG_DATA_HOME:-$HOME/.local/share}/tmq.  Returns a malloc'd path. */
int tmq_root_path(const char *opt, char **path, struct tmq_error *e);
/* Open the root directory; with create, make it and its parents when
 * missing (as mkdir -p). */
int tmq_root_open(const char *path, int create, int *fd, struct tmq_error *e);
/* Both at once: the root that opt (or the environment) names, opened. */
int tmq_root_open_opt(const char *opt, int create, int *fd,
    struct tmq_error *e);
/* Name the root that opt (or the environment) names before e's message
 * ("ROOT: cannot read the root: ..."); -1, for `return`. */
int tmq_root_fail_prefix(const char *opt, struct tmq_error *e);

#endif
