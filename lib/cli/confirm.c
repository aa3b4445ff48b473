/* confirm.c: confirmation on the controlling terminal (see confirm.h). */
#include <readpassphrase.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/confirm.h"

int
tmq_confirm(const char *question, int yes, struct tmq_error *e)
{
	char prompt[512], answer[16];

	if (yes)
		return 1;
	snprintf(prompt, sizeof prompt, "%s [y/N] ", question);
	if (readpassphrase(prompt, answer, sizeof answer,
	    RPP_ECHO_ON | RPP_REQUIRE_TTY) == NULL)
		return tmq_fail(e, "no terminal to confirm on: use --yes");
	return strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0;
}
