/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands' front ends, one file each (cmd_<command>.c), and what
 * they share: opening the backend, reading the weights file, reporting
 * an error, and the tuning run that tune, exec and the daemon's tuners
 * all make.  Each command returns bwapd's exit status.
 */
#ifndef BWAPD_CMD_H
#define BWAPD_CMD_H

#include "backend.h"
#include "opts.h"
#include "wfile.h"

/* ---- shared by the commands (cmd_common.c) ----------------------------- */

/* Log "what: why" (or the errno of ret); returns 1, the exit status. */
int cmd_error(const char *what, int ret, const char *why);
/* The backend o names and its topology; 0, or 1 with a message. */
int cmd_open_backend(const struct opts *o, struct bwapd_backend *b,
		     struct bwapd_topology *t);
/* This machine, even with --model: a process runs here. */
int cmd_open_here(const struct opts *o, struct bwapd_backend *b,
		  struct bwapd_topology *t);
/* What profiling falls back to without counters: "hmat" or "slit". */
const char *cmd_fallback_name(const struct bwapd_topology *t);
/* A node list, or 1 with a message naming what (the option). */
int cmd_parse_workers(const char *what, const char *arg, uint32_t *w);
/* Where DAMON's record is: the run directory, or /run/bwapd without one. */
const char *cmd_damon_dir(const struct opts *o);
/* The backend and the weights file (bwapd_file_free); 0, or 1 with a message. */
int cmd_load_file(const struct opts *o, struct bwapd_backend *b,
		  struct bwapd_topology *t, struct bwapd_file *f);
/*
 * Every node of mask is below nr_nodes: 0, or EXIT_USAGE with a message
 * that starts with what ("--workers 0-5").
 */
int cmd_check_nodes(const char *what, uint32_t mask, int nr_nodes);
/*
 * The file has no entry for workers arg: the message; returns 1, or
 * EXIT_USAGE for a node the machine does not have.
 */
int cmd_unknown_set(const struct bwapd_file *f, const char *arg);

/* ---- the weights as show prints them (cmd_show.c), also for profile ---- */

void cmd_show_table(const struct bwapd_file *f, int nr_nodes, uint32_t only);
/* The model's bandwidth and latency matrices (Intel MLC's), as tables. */
void cmd_show_matrix(const struct bwapd_file *f, const struct bwapd_topology *t);
void cmd_show_json(const struct bwapd_file *f, const struct bwapd_topology *t,
		   uint32_t only);

/* ---- the tuning run (cmd_tune.c), also for exec and the daemon --------- */

/*
 * The model of the machine the tuner predicts with: --predict-with's,
 * else the one in the profile (file_model, from cmd_canonical_of; may be
 * NULL), else the firmware's description of t (HMAT, else SLIT).  Never
 * the machine --model simulates.  0, or -errno with the reason logged.
 */
int cmd_machine_of(const struct opts *o, const struct bwapd_topology *t,
		   const struct bwapd_machine_model *file_model,
		   struct bwm_machine *m);
/*
 * The canonical weights of the workers: the file's; for a set the file
 * skipped, its model's; --canonical's; or measured now.  canon->frac are
 * the shares, canon->weights them as show prints them (within
 * canon->u8_err).  If model is not NULL, *model is the file's model of
 * the machine (malloc'd; NULL: none), read with it.  -EDOM: --canonical
 * has not one weight per node (a usage error).
 */
int cmd_canonical_of(const struct opts *o, struct bwapd_backend *b,
		     const struct bwapd_topology *t, uint32_t workers,
		     struct bwapd_result *canon,
		     struct bwapd_machine_model **model);
/*
 * --plot's file can be written, checked before anything is tuned: 0, or 1
 * with a message.
 */
int cmd_check_plot(const struct opts *o);
/*
 * Tune a target: a process (pid), a process whose counters come from the
 * model (pid and --model/--workload), or a workload of the model (pid 0).
 * chosen: how the process's pages get their weights, as
 * bwapd_place_choose() chose it already, or NULL to choose it here.
 */
struct bwapd_place_choice;
int cmd_tune_target(const struct opts *o, pid_t pid,
		    const struct bwapd_place_choice *chosen);

/* ---- the commands ------------------------------------------------------- */

int cmd_topology(const struct opts *o);
int cmd_profile(const struct opts *o);
int cmd_show(const struct opts *o, const char *arg);
int cmd_apply(const struct opts *o, const char *arg);
int cmd_tune(const struct opts *o);
/* The command is w's words after "--" (or after "exec"). */
int cmd_exec(struct opts *o, const int *seen, struct words *w);
int cmd_status(const struct opts *o);
int cmd_daemon(const struct opts *o);
int cmd_inspect(const struct opts *o);
/* inspect -- COMMAND: argv is the command. */
int cmd_inspect_exec(const struct opts *o, char **argv);

#endif /* BWAPD_CMD_H */
