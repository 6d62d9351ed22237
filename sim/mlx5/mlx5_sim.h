/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 model's few entry points beyond the model registry, for tests and
 * fuzzers. hw-docs/mlx5-model.md describes the model.
 */
#ifndef ZN_SIM_MLX5_SIM_H
#define ZN_SIM_MLX5_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim/model.h"

/* Makes the device fatal as a firmware error would: health syndrome synd
 * (non-zero) and ext_synd in the health buffer, the health counter stops,
 * no further commands complete, both data paths stop. Safe from any thread;
 * applied on the model's next poll. -EINVAL if d is not an mlx5 device or
 * synd is 0. Only a device reset recovers. */
int zn_sim_mlx5_set_fatal(struct zn_sim_device *d, uint8_t synd, uint16_t ext_synd);

/* Runs one command's input bytes through the model's command processor, as
 * if it had arrived through the command queue (no entry, mailboxes or
 * token: DevX's view), and copies outlen output bytes to out. For tests and
 * fuzzers, on the thread that owns the model (no loop running, or from its
 * thread). 0, or -EINVAL (not an mlx5 device, a length above 64 KiB or 0). */
int zn_sim_mlx5_exec(struct zn_sim_device *d, const void *in, size_t inlen, void *out,
		     size_t outlen);

#endif
