/* partfile.h: partition files, P-YYYYMMDD_FIRST.tmf (tmq-format(5)). */
#ifndef TMQ_PARTFILE_H
#define TMQ_PARTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* A last line without its newline that stays as it is this long (ms) was
 * cut short (its writer was killed, or its disk filled), not one being
 * written: the appender then ends it, tmq-dump reports it. */
#define TMQ_CUT_WAIT_MS 250

struct tmq_pfile {
	unsigned partition;
	unsigned day;		/* YYYYMMDD, UTC */
	uint64_t first;		/* offset of the file's first line */
	char name[64];
};

/* Parse a file name; -1 when it is not a partition file. */
int tmq_pfile_parse(const char *name, struct tmq_pfile *pf);
/* Format a name into pf->name from its fields. */
void tmq_pfile_name(struct tmq_pfile *pf);
/* The partition files of a topic directory: tmq_pfiles_list, dirlist.h. */
/* pf's end offset (the offset after its last line) for a file of lines
 * lines: -1 (e set) when that runs past 2^64-1: the file is corrupt, for
 * offsets never wrap. */
int tmq_pfile_end(const struct tmq_pfile *pf, uint64_t lines, uint64_t *end,
    struct tmq_error *e);
/* Does next, the file after prev among a partition's files, start where
 * prev ends (prev holding lines lines, a last one cut short when cut)?
 * 0 when it does; else -1, e saying which file starts where no file ends:
 * two files that give one offset to two lines, or none to the offsets
 * between them, are damage, never read past in silence. */
int tmq_pfiles_chain(const struct tmq_pfile *prev, uint64_t lines, int cut,
    const struct tmq_pfile *next, struct tmq_error *e);
/* A partition's end and range: partscan.h (counted from the index). */

#endif
