/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bwapd_stable(): tell bwapd that the application has set up its data
 * and entered its steady phase, so that tuning its weights starts now
 * (the BWAP paper's BWAP-init).  Link with -lbwapd-stable, or copy
 * bwapd_stable.c into the application: it is a few lines.
 *
 * Under "bwapd exec --wait-stable" the call writes to the descriptor
 * named by $BWAPD_NOTIFY_FD and closes it.  Elsewhere it does nothing.
 * Returns 1 if bwapd was told, 0 if no bwapd waits, -1 with errno set
 * if telling it failed.
 */
#ifndef BWAPD_STABLE_H
#define BWAPD_STABLE_H

#ifdef __cplusplus
extern "C" {
#endif

int bwapd_stable(void);

#ifdef __cplusplus
}
#endif

#endif /* BWAPD_STABLE_H */
