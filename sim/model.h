/* SPDX-License-Identifier: MIT */
/*
 * Device models as plug-ins of zn-nicsim.
 *
 * A model is a struct zn_sim_model_ops in the registry (sim/model.c). Its
 * create() parses its options, describes the device to the vfio-user server
 * with zn_vfu_dev_realize(), and returns its state; from then on the server
 * calls it through zn_vfu_dev_ops (trapped BAR accesses, poll, reset) on the
 * loop thread. A model with network ports exposes them as zn_sim_port
 * endpoints that wires connect (sim/wire.h).
 *
 * Adding a model: write sim/NAME/NAME.c defining zn_sim_model_NAME, add one
 * line to the registry.
 */
#ifndef ZN_SIM_MODEL_H
#define ZN_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/vfu/vfu.h"

struct zn_sim_port;
struct zn_sim_fault;

#define ZN_SIM_MAX_ARGS		16
#define ZN_SIM_ARG_KEY_MAX	32
#define ZN_SIM_ARG_VAL_MAX	128
#define ZN_SIM_NAME_MAX		32

/* key=value options of one device, from "NAME=MODEL,key=val,..." */
struct zn_sim_args {
	unsigned n;
	struct {
		char key[ZN_SIM_ARG_KEY_MAX];
		char val[ZN_SIM_ARG_VAL_MAX];
		bool used;
	} kv[ZN_SIM_MAX_ARGS];
};

/* "a=1,b=x" -> args; -EINVAL with a message in err. */
int zn_sim_args_parse(const char *s, struct zn_sim_args *a, char *err, size_t errlen);
/* *val holds the default on entry; the key, if given, must be an integer
 * (decimal, 0x hex) within [min, max]. Marks the key used. */
int zn_sim_arg_u64(struct zn_sim_args *a, const char *key, uint64_t min, uint64_t max,
		   uint64_t *val, char *err, size_t errlen);
/* -EINVAL naming the first key no getter asked for. */
int zn_sim_args_check_used(const struct zn_sim_args *a, const char *model, char *err,
			   size_t errlen);

struct zn_sim_model_ops {
	const char *name;
	const char *summary;	/* one line */
	const char *options;	/* "  key=VAL  what (default)\n" lines, or NULL */
	int (*create)(struct zn_vfu_dev *dev, struct zn_sim_args *args, void **model,
		      char *err, size_t errlen);
	void (*destroy)(void *model);
	/* Model counters, "KEY VALUE" through emit (keys without prefix). */
	void (*stats)(void *model, zn_vfu_emit_fn emit, void *ctx);
	unsigned (*nports)(void *model);		/* NULL: no ports */
	struct zn_sim_port *(*port)(void *model, unsigned index);
};

const struct zn_sim_model_ops *zn_sim_model_find(const char *name);
/* The registry in order; NULL past the end. */
const struct zn_sim_model_ops *zn_sim_model_at(unsigned index);

/* A named device of the daemon: one model instance behind one socket. */
struct zn_sim_device {
	char name[ZN_SIM_NAME_MAX + 1];
	const struct zn_sim_model_ops *ops;
	void *model;
	struct zn_vfu_dev *dev;
	struct zn_sim_fault *fault;	/* sim/fault.h; NULL until faults are set */
};

/* spec "NAME=MODEL[,key=val...]": NAME is 1-32 of [A-Za-z0-9_-]. The device
 * is realized but not listening yet. -EINVAL/-ENOENT/... with err set. */
int zn_sim_device_create(const char *spec, struct zn_sim_device **out, char *err,
			 size_t errlen);
void zn_sim_device_free(struct zn_sim_device *d);
/* Adds faults "key=val,..." (sim/fault.h) to d's: to every port of d and to
 * its DMA maps. -EINVAL with err set (also for a device without ports). */
int zn_sim_device_faults(struct zn_sim_device *d, const char *kvs, char *err, size_t errlen);
/* Server counters then model counters ("NAME.model.KEY"). */
void zn_sim_device_stats(struct zn_sim_device *d, zn_vfu_emit_fn emit, void *ctx);
unsigned zn_sim_device_nports(struct zn_sim_device *d);
struct zn_sim_port *zn_sim_device_port(struct zn_sim_device *d, unsigned index);

#endif
