// SPDX-License-Identifier: GPL-2.0
/*
 * wi_runas UID COMMAND [ARG...]: run COMMAND with real, effective and
 * saved user and group IDs UID and no supplementary groups.  For the
 * permission tests in a test machine that has no user database.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long id = argc > 2 ? strtol(argv[1], NULL, 10) : -1;

	if (id <= 0) {
		fprintf(stderr, "usage: wi_runas UID COMMAND [ARG...]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setresgid((gid_t)id, (gid_t)id, (gid_t)id) ||
	    setresuid((uid_t)id, (uid_t)id, (uid_t)id)) {
		perror("wi_runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
