/* progress.h: progress lines on stderr for long commands, only when stderr
 * is a terminal, at most a few times a second. */
#ifndef TMQ_PROGRESS_H
#define TMQ_PROGRESS_H

void tmq_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clear the progress line (if one was shown). */
void tmq_progress_done(void);

#endif
