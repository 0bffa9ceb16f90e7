// SPDX-License-Identifier: GPL-2.0
/*
 * bwapd exec: run a command under weighted interleave with the canonical
 * weights of the nodes bwapd may run on, wait until it is steady, tune
 * it, and follow it until it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "json_out.h"
#include "kweights.h"
#include "log.h"
#include "placement.h"
#include "seccomp.h"
#include "wi_abi.h"

/*
 * Weighted interleave over every memory node; its own weights, the
 * canonical DWP 0 ones, unless they are the global weights (--global) or
 * DAMON or bwapd place its pages (own == 0): then, on a kernel without
 * weighted interleave, plain interleave, which bwapd's migration steers.
 */
static int exec_policy(const uint8_t *w, int nr, unsigned long *mask,
		       int own)
{
	unsigned long maxnode = 8 * sizeof(*mask) + 1;

	if (syscall(SYS_set_mempolicy, MPOL_WEIGHTED_INTERLEAVE, mask, maxnode)) {
		/* bwapd moves the pages: plain interleave starts them near */
		if (errno != EINVAL || own ||
		    syscall(SYS_set_mempolicy, MPOL_INTERLEAVE, mask, maxnode))
			return -errno;
	}
	if (own && wi_set_mempolicy_weights(PIDFD_SELF_THREAD_GROUP, w,
					    (unsigned long)nr, 0U))
		return -errno;
	return 0;
}

/* Run argv, tune it, wait for it: its exit status, or bwapd's error. */
static int exec_and_tune(const struct opts *o, char **argv)
{
	struct bwapd_backend b;
	struct bwapd_topology topo;
	struct bwapd_result canon;
	uint8_t w[BWAPD_MAX_NODES];
	unsigned long mask = 0;
	uint32_t workers;
	int status, rc, p[2], notify[2] = { -1, -1 }, err = 0, own = !o->global;
	static struct bwapd_place_choice chosen;
	ssize_t n;
	pid_t pid;

	/* a real program on this machine, whatever counts its stalls */
	if (cmd_check_plot(o) || cmd_open_here(o, &b, &topo))
		return 1;
	rc = bwapd_process_workers(0, &topo, &workers);
	if (!rc)
		rc = cmd_canonical_of(o, &b, &topo, workers, &canon, NULL);
	if (!rc)
		rc = bwapd_dwp_weights(canon.frac, topo.nr_nodes, workers, 0,
				       o->tune.u8_err, w);
	if (rc) {
		bwapd_backend_destroy(&b);
		return rc == -EDOM ? EXIT_USAGE : 1;	/* --canonical's count */
	}
	bwapd_backend_destroy(&b);
	/* --global: the DWP 0 weights become the global ones now */
	if (o->global) {
		char why[256];
		int ret = bwapd_weights_write(o->root ? o->root : "", w,
					      topo.nr_nodes, why, sizeof(why));

		if (ret)
			return cmd_error("exec", ret, why);
	}
	/*
	 * its own weights, or DAMON or bwapd move its pages: chosen once,
	 * before the program starts (DAMON's probe starts a kdamond), and
	 * handed to the tuner
	 */
	if (own) {
		char why[1024];

		chosen.kind = bwapd_place_choose(o->placement, cmd_damon_dir(o),
						 why, sizeof(why), chosen.note,
						 sizeof(chosen.note));
		if (chosen.kind < 0) {
			bwapd_log(BWAPD_LOG_ERR, "cannot give %s weights of its own: %s",
				  argv[0], why);
			return 127;
		}
		own = chosen.kind == BWAPD_PLACE_WEIGHTS;
	}
	mask = topo.mem_nodes;
	/* closed by a successful exec; the child's errno otherwise */
	if (pipe2(p, O_CLOEXEC) || (o->wait_stable && pipe2(notify, O_CLOEXEC)))
		return cmd_error("exec", -errno, NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cmd_error("fork", -errno, NULL);
	if (!pid) {
		int err = -exec_policy(w, topo.nr_nodes, &mask, own);

		close(p[0]);
		if (!err && o->wait_stable) {
			/* the program tells when it is steady: bwapd_stable() */
			char fd[16];

			snprintf(fd, sizeof(fd), "%d", notify[1]);
			close(notify[0]);
			if (fcntl(notify[1], F_SETFD, 0) ||
			    setenv("BWAPD_NOTIFY_FD", fd, 1))
				err = errno;
		}
		if (!err) {
			execvp(argv[0], argv);
			err = errno;
		}
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (n == sizeof(err)) {
		char why[512];

		waitpid(pid, &status, 0);
		if (bwapd_seccomp_why(err, why, sizeof(why)))
			bwapd_log(BWAPD_LOG_ERR, "cannot put %s under weighted "
				  "interleave: %s", argv[0], why);
		else if (err == ENOSYS || err == EINVAL)
			bwapd_log(BWAPD_LOG_ERR, "cannot put %s under weighted interleave: %s "
				"(a kernel without MPOL_WEIGHTED_INTERLEAVE or "
				"set_mempolicy_weights?)", argv[0], strerror(err));
		else
			bwapd_log(BWAPD_LOG_ERR, "%s: %s", argv[0], strerror(err));
		return 127;
	}
	if (o->wait_stable) {
		char buf[16];

		close(notify[1]);
		while ((n = read(notify[0], buf, sizeof(buf))) < 0 && errno == EINTR)
			;
		close(notify[0]);
		if (n <= 0 && waitpid(pid, &status, WNOHANG) == pid) {
			bwapd_log(BWAPD_LOG_ERR, "%s exited before it said it was stable",
				argv[0]);
			return WIFEXITED(status) ? WEXITSTATUS(status) :
			       128 + WTERMSIG(status);
		}
		if (o->json) {
			json_object *e = json_object_new_object();

			bj_str(e, "event", "stable");
			bj_str(e, "command", argv[0]);
			bj_bool(e, "notified", n > 0);
			bj_print(e);
		} else {
			printf("%s is stable%s\n", argv[0],
			       n > 0 ? "" : " (closed the notification descriptor)");
		}
	}
	if (o->delay > 0) {
		struct timespec ts = { (time_t)o->delay,
			(long)((o->delay - (double)(time_t)o->delay) * 1e9) };

		nanosleep(&ts, NULL);
	}
	rc = cmd_tune_target(o, pid, o->global ? NULL : &chosen);
	if (rc)
		bwapd_log(BWAPD_LOG_WARNING, "%s runs on untuned", argv[0]);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	if (WIFEXITED(status))
		return rc ? rc : WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int cmd_exec(struct opts *o, const int *seen, struct words *w)
{
	char **command = w->rest ? w->rest : w->word + 1;

	if (!command[0]) {
		bwapd_log(BWAPD_LOG_ERR, "exec: no command (bwapd exec -- COMMAND)");
		return EXIT_USAGE;
	}
	if (w->rest && w->nr > 1) {
		bwapd_log(BWAPD_LOG_ERR, "exec: %s: the command goes after \"--\"",
			  w->word[1]);
		return EXIT_USAGE;
	}
	/* a launched program is followed until it exits */
	if (!seen[opts_index("watch")])
		o->watch = 0;
	return exec_and_tune(o, command);
}
