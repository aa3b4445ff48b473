/* rootrisk.c: telling when a root is open to others (see rootrisk.h). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "store/rootrisk.h"

static int
in_group(gid_t g)
{
	gid_t list[256];
	int n, i;

	if (g == getegid())
		return 1;
	n = getgroups((int)(sizeof list / sizeof list[0]), list);
	for (i = 0; i < n; i++)
		if (list[i] == g)
			return 1;
	return 0;
}

static const char *
user_name(uid_t u, char *buf, size_t n)
{
	struct passwd *pw = getpwuid(u);

	if (pw != NULL)
		snprintf(buf, n, "user %s", pw->pw_name);
	else
		snprintf(buf, n, "user %lu", (unsigned long)u);
	return buf;
}

static const char *
group_name(gid_t g, char *buf, size_t n)
{
	struct group *gr = getgrgid(g);

	if (gr != NULL)
		snprintf(buf, n, "group %s", gr->gr_name);
	else
		snprintf(buf, n, "group %lu", (unsigned long)g);
	return buf;
}

/* The path as the terminal may show it. */
static void
escape(const char *path, char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");

	buf[0] = '\0';
	if (f == NULL)
		return;
	tmq_escape_terminal(f, (const unsigned char *)path, strlen(path));
	fclose(f);
	buf[n - 1] = '\0';
}

int
tmq_root_risk(int fd, const char *path, char *msg, size_t n)
{
	struct stat st;
	char who[600], name[300], shown[1024];
	uid_t me = geteuid();
	const char *risk = NULL;

	if (fstat(fd, &st) < 0)
		return 0;
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		risk = "every user can write to it";
	else if (st.st_uid != me && st.st_uid != 0 &&
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(who, sizeof who, "it belongs to %s, and %s can write "
		    "to it", user_name(st.st_uid, name, sizeof name),
		    st.st_mode & S_IWOTH ? "every user" : "its group");
		risk = who;
	} else if ((st.st_mode & S_IWGRP) && !in_group(st.st_gid)) {
		snprintf(who, sizeof who, "%s, which you are not in, can "
		    "write to it", group_name(st.st_gid, name, sizeof name));
		risk = who;
	}
	if (risk == NULL)
		return 0;
	escape(path, shown, sizeof shown);
	snprintf(msg, n, "%s: the root is open to others: %s, so they can "
	    "plant, change or remove its files (see tmq(7), A shared root)",
	    shown, risk);
	return 1;
}
