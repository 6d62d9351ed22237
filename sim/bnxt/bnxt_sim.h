/* SPDX-License-Identifier: MIT */
/*
 * The bnxt model's few entry points beyond the model registry, for tests.
 * hw-docs/bnxt-model.md describes the model.
 */
#ifndef ZN_SIM_BNXT_SIM_H
#define ZN_SIM_BNXT_SIM_H

#include <stdbool.h>

#include "sim/model.h"

/* Administrative link state of a bnxt device's port, as a cable pull would
 * change it: false holds the link down, true leaves it to the wire (up when
 * plugged). Safe from any thread; the model notices on its next poll and
 * posts LINK_STATUS_CHANGE if the driver asked for it. -EINVAL if d is not
 * a bnxt device. */
int zn_sim_bnxt_set_link(struct zn_sim_device *d, bool up);

#endif
