/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The canonical-weights file (wfile.c): the machine's identity and the
 * canonical weights of every worker set, as profile writes them and
 * show, apply and the tuners read them.
 */
#ifndef BWAPD_WFILE_H
#define BWAPD_WFILE_H

#include "machine_model.h"
#include "profile.h"

#define BWAPD_DEFAULT_FILE	"/var/lib/bwapd/canonical-weights.json"
#define BWAPD_FILE_FORMAT	"bwapd-canonical-weights"
#define BWAPD_FILE_VERSION	1

struct bwapd_file {
	uint64_t topology_id;
	uint64_t distance_hash;
	int nr_nodes;
	char cpu_model[128];
	char backend[96];
	char created[32];
	int nr_results;
	struct bwapd_result *result;	/* nr_results entries, allocated */
	int nr_symmetric, nr_spread;
	/* the machine's model ("model", "model_figures"); NULL: none */
	struct bwapd_machine_model *model;
};

/*
 * An empty file with room for max results (allocated: bwapd_file_free);
 * 0 or -ENOMEM.
 */
int bwapd_file_init(struct bwapd_file *f, int max);
/* Free the results and the model; f is empty afterwards (also after a
 * failed read). */
void bwapd_file_free(struct bwapd_file *f);
/*
 * The directory path goes in: made for the default file, there already
 * for another.  0, or -errno with the directory and the reason in why.
 */
int bwapd_file_dir(const char *path, char *why, size_t len);
int bwapd_file_write(const char *path, const struct bwapd_topology *t,
		     const struct bwapd_file *f, char *why, size_t len);
/*
 * Read and check a file: -EINVAL (corrupt: why says where), -ESTALE (made
 * on another machine: why says what differs), -ENOENT, -ENOMEM.  On
 * success the results are allocated to the file's size: bwapd_file_free.
 */
int bwapd_file_read(const char *path, const struct bwapd_topology *t,
		    struct bwapd_file *f, char *why, size_t len);
/* The entry for exactly these workers, or NULL. */
const struct bwapd_result *bwapd_file_find(const struct bwapd_file *f,
					   uint32_t workers);

#endif /* BWAPD_WFILE_H */
