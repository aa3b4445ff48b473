/* t-dotdir.c: lib/store/dotdir's registry of tmq's own files against
 * tmq-format(5), "Files of tmq's own": every entry of the registry is
 * documented there, every file documented there is in the registry, and
 * each is made by a module that is in the tree; and no code of lib/ but
 * the registry spells one of their names in a string.  The page and lib/
 * are read from TMQ_SRCDIR (make check sets it), else ".".  The last tests
 * feed the checks a page with an entry too many and one too few, and code
 * that spells a name, so that this test can fail. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "store/dotdir.h"

#define MAXE 64
#define ELEN 256

/* An .It line of mdoc rendered to the name it shows: its words but the
 * macros, joined (the entries join their parts with Ns), "\&" dropped. */
static void
render(const char *line, char *out, size_t n)
{
	static const char *macros[] = { "Pa", "Ar", "Ns", "Li", "Ql", "Sx",
	    NULL };
	char buf[ELEN], *w, *save;
	size_t len = 0;

	snprintf(buf, sizeof buf, "%s", line + 3);	/* past ".It" */
	out[0] = '\0';
	for (w = strtok_r(buf, " \t\n", &save); w != NULL;
	    w = strtok_r(NULL, " \t\n", &save)) {
		const char **m;
		const char *c;

		for (m = macros; *m != NULL && strcmp(*m, w) != 0; m++)
			;
		if (*m != NULL)
			continue;
		for (c = w; *c != '\0' && len + 1 < n; c++) {
			if (c[0] == '\\' && c[1] == '&') {
				c++;
				continue;
			}
			out[len++] = *c;
		}
		out[len] = '\0';
	}
}

/* The entries of the section "Files of tmq's own" in the page at path:
 * the .It lines of its list (not of lists within it).  Their number, or
 * -1 when the page cannot be read. */
static int
page_entries(const char *path, char e[][ELEN], int max)
{
	char line[1024];
	int in = 0, depth = 0, n = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, ".Ss ", 4) == 0 || strncmp(line, ".Sh ", 4) == 0) {
			in = strcmp(line, ".Ss Files of tmq's own\n") == 0;
			continue;
		}
		if (!in)
			continue;
		if (strncmp(line, ".Bl", 3) == 0)
			depth++;
		else if (strncmp(line, ".El", 3) == 0)
			depth--;
		else if (depth == 1 && strncmp(line, ".It ", 4) == 0 && n < max)
			render(line, e[n++], ELEN);
	}
	fclose(f);
	return n;
}

static int
in_list(const char *s, char e[][ELEN], int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(e[i], s) == 0)
			return 1;
	return 0;
}

static int
in_registry(const char *s)
{
	unsigned i;

	for (i = 0; i < tmq_dot_nfiles; i++)
		if (strcmp(tmq_dot_files[i].doc, s) == 0)
			return 1;
	return 0;
}

/* The breaches between the registry and a page's entries: registry
 * entries not on the page, page entries not in the registry; said with
 * diag when loud. */
static int
breaches(char e[][ELEN], int n, int loud)
{
	unsigned i;
	int j, b = 0;

	for (i = 0; i < tmq_dot_nfiles; i++)
		if (!in_list(tmq_dot_files[i].doc, e, n)) {
			b++;
			if (loud)
				diag("in dotdir.h, not in tmq-format(5): %s",
				    tmq_dot_files[i].doc);
		}
	for (j = 0; j < n; j++)
		if (!in_registry(e[j])) {
			b++;
			if (loud)
				diag("in tmq-format(5), not in dotdir.h: %s",
				    e[j]);
		}
	return b;
}

/* The names of the registry as code would spell them in a string. */
static const char *spelled[] = { "\"" TMQ_DOT_BLOB, "\"" TMQ_DOT_LIVE,
    "\"" TMQ_DOT_FENCE "\"", "\"" TMQ_DOT_SNAP ".", "\"" TMQ_DOT_FOLLOW,
    TMQ_DOT_IDX "\"", "\"" TMQ_DOT_ARCHIVE_LOCK "\"",
    "\"" TMQ_DOT_ARCHIVE_TMP "\"", "\"" TMQ_DOT_WORK "\"", NULL };

/* The spelled name that code text (NUL-terminated) holds outside its
 * comments, or NULL. */
static const char *
spells(char *text)
{
	const char **w;
	char *r, *o;
	int str = 0;

	/* Comments out, strings kept. */
	for (r = o = text; *r != '\0'; r++) {
		if (!str && r[0] == '/' && r[1] == '*') {
			char *end = strstr(r + 2, "*/");

			if (end == NULL)
				break;
			r = end + 1;
			*o++ = ' ';
			continue;
		}
		if (*r == '\\' && r[1] != '\0') {
			*o++ = *r++;
			*o++ = *r;
			continue;
		}
		if (*r == '"')
			str = !str;
		*o++ = *r;
	}
	*o = '\0';
	for (w = spelled; *w != NULL; w++)
		if (strstr(text, *w) != NULL)
			return *w;
	return NULL;
}

/* The files of lib/ (of src) but the registry's that spell a name: said
 * with diag; their number, or -1 when lib/ cannot be read. */
static int
spellers(const char *src)
{
	char dir[4096], path[8192];
	struct dirent *l, *d;
	DIR *top, *sub;
	int n = 0;

	snprintf(dir, sizeof dir, "%s/lib", src);
	if ((top = opendir(dir)) == NULL)
		return -1;
	while ((l = readdir(top)) != NULL) {
		if (l->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, l->d_name);
		if ((sub = opendir(path)) == NULL)
			continue;
		while ((d = readdir(sub)) != NULL) {
			size_t len = strlen(d->d_name);
			const char *w;
			char *text;
			FILE *f;
			long sz;

			if (len < 3 || (strcmp(d->d_name + len - 2, ".c") != 0 &&
			    strcmp(d->d_name + len - 2, ".h") != 0) ||
			    (strcmp(l->d_name, "store") == 0 &&
			    strncmp(d->d_name, "dotdir.", 7) == 0))
				continue;
			snprintf(path, sizeof path, "%s/%s/%s", dir, l->d_name,
			    d->d_name);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			fseek(f, 0, SEEK_END);
			sz = ftell(f);
			rewind(f);
			text = calloc(1, (size_t)sz + 1);
			if (text != NULL && fread(text, 1, (size_t)sz, f) ==
			    (size_t)sz && (w = spells(text)) != NULL) {
				diag("lib/%s/%s spells %s: name it by dotdir.h",
				    l->d_name, d->d_name, w);
				n++;
			}
			free(text);
			fclose(f);
		}
		closedir(sub);
	}
	closedir(top);
	return n;
}

int
main(void)
{
	static char e[MAXE][ELEN];
	const char *src = getenv("TMQ_SRCDIR");
	char path[4096], out[ELEN];
	unsigned i, j;
	int n, dup = 0, makers = 1;

	if (src == NULL || *src == '\0')
		src = ".";
	snprintf(path, sizeof path, "%s/man/tmq-format.5", src);
	n = page_entries(path, e, MAXE);
	ok(n > 0, "tmq-format(5) read, its files of tmq's own found (%d)", n);
	if (n < 0)
		return done_testing();
	is_int(breaches(e, n, 1), 0, "the registry and the page name the "
	    "same files");
	for (i = 0; i < tmq_dot_nfiles; i++)
		for (j = i + 1; j < tmq_dot_nfiles; j++)
			dup += strcmp(tmq_dot_files[i].doc,
			    tmq_dot_files[j].doc) == 0;
	is_int(dup, 0, "no file is in the registry twice");
	for (i = 0; i < tmq_dot_nfiles; i++) {
		snprintf(path, sizeof path, "%s/lib/%s", src,
		    tmq_dot_files[i].maker);
		if (access(path, R_OK) != 0) {
			makers = 0;
			diag("%s: its maker %s is not in the tree",
			    tmq_dot_files[i].doc, tmq_dot_files[i].maker);
		}
	}
	ok(makers, "every file's maker is in lib/");
	is_int(spellers(src), 0, "no code of lib/ but the registry spells "
	    "their names");

	/* The check can fail. */
	render(".It Pa --group-- Ns Ar NAME Ns Pa /.tmq/live. Ns Ar TAG", out,
	    sizeof out);
	is_str(out, "--group--NAME/.tmq/live.TAG", "an entry is read as the "
	    "name it shows");
	render(".It Pa \\&. Ns Ar NAME Ns Pa .tmp", out, sizeof out);
	is_str(out, ".NAME.tmp", "\\& is dropped");
	snprintf(e[n], ELEN, "TOPIC/.tmq/unregistered");
	is_int(breaches(e, n + 1, 0), 1, "a page's entry not in the registry "
	    "is a breach");
	is_int(breaches(e + 1, n - 1, 0), 1, "a registry entry not on the "
	    "page is a breach");
	{
		char code[] = "/* \"live.TAG\" */ x = \"a\\\"/*\"; "
		    "snprintf(b, n, \"live.%s\", t);";
		char quiet[] = "/* \"live.TAG\" */ f(\"/*\", TMQ_DOT_LIVE);";

		ok(spells(code) != NULL, "a name spelled in code is found");
		ok(spells(quiet) == NULL, "one in a comment is not");
	}
	return done_testing();
}
