/* SPDX-License-Identifier: MIT */
/* The model registry, option parsing, and named devices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fault.h"
#include "sim/model.h"
#include "sim/wire.h"

extern const struct zn_sim_model_ops zn_sim_model_edu;
extern const struct zn_sim_model_ops zn_sim_model_bnxt;
extern const struct zn_sim_model_ops zn_sim_model_mlx5;

static const struct zn_sim_model_ops *const registry[] = {
	&zn_sim_model_edu,
	&zn_sim_model_bnxt,
	&zn_sim_model_mlx5,
};

const struct zn_sim_model_ops *zn_sim_model_at(unsigned index)
{
	return index < sizeof(registry) / sizeof(registry[0]) ? registry[index] : NULL;
}

const struct zn_sim_model_ops *zn_sim_model_find(const char *name)
{
	for (unsigned i = 0; zn_sim_model_at(i); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

int zn_sim_args_parse(const char *s, struct zn_sim_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		size_t klen = eq ? (size_t)(eq - s) : len;
		size_t vlen = eq ? len - klen - 1 : 0;

		if (klen == 0 || !eq) {
			snprintf(err, errlen, "option '%.*s' is not key=value", (int)len, s);
			return -EINVAL;
		}
		if (a->n == ZN_SIM_MAX_ARGS || klen >= ZN_SIM_ARG_KEY_MAX ||
		    vlen >= ZN_SIM_ARG_VAL_MAX) {
			snprintf(err, errlen, "option '%.*s' too long or too many options",
				 (int)len, s);
			return -EINVAL;
		}
		for (unsigned i = 0; i < a->n; i++) {
			if (strlen(a->kv[i].key) == klen && !strncmp(a->kv[i].key, s, klen)) {
				snprintf(err, errlen, "option '%.*s' given twice", (int)klen, s);
				return -EINVAL;
			}
		}
		memcpy(a->kv[a->n].key, s, klen);
		memcpy(a->kv[a->n].val, eq + 1, vlen);
		a->n++;
		s = end ? end + 1 : s + len;
	}
	return 0;
}

int zn_sim_arg_u64(struct zn_sim_args *a, const char *key, uint64_t min, uint64_t max,
		   uint64_t *val, char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->n; i++) {
		char *end;
		unsigned long long v;

		if (strcmp(a->kv[i].key, key))
			continue;
		a->kv[i].used = true;
		errno = 0;
		v = strtoull(a->kv[i].val, &end, 0);
		if (errno || end == a->kv[i].val || *end || a->kv[i].val[0] == '-' ||
		    v < min || v > max) {
			snprintf(err, errlen, "%s=%s: want an integer in [%llu, %llu]", key,
				 a->kv[i].val, (unsigned long long)min, (unsigned long long)max);
			return -EINVAL;
		}
		*val = v;
		return 0;
	}
	return 0;
}

int zn_sim_args_check_used(const struct zn_sim_args *a, const char *model, char *err,
			   size_t errlen)
{
	for (unsigned i = 0; i < a->n; i++) {
		if (!a->kv[i].used) {
			snprintf(err, errlen, "model %s has no option '%s' (see --list-models)",
				 model, a->kv[i].key);
			return -EINVAL;
		}
	}
	return 0;
}

static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len > ZN_SIM_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return false;
	}
	return true;
}

int zn_sim_device_create(const char *spec, struct zn_sim_device **out, char *err,
			 size_t errlen)
{
	const char *eq = strchr(spec, '=');
	const char *comma;
	char model[ZN_SIM_NAME_MAX + 1];
	struct zn_sim_args args;
	struct zn_sim_device *d;
	size_t nlen, mlen;
	int ret;

	if (!eq) {
		snprintf(err, errlen, "'%s': want NAME=MODEL[,key=val...]", spec);
		return -EINVAL;
	}
	nlen = (size_t)(eq - spec);
	if (!valid_name(spec, nlen)) {
		snprintf(err, errlen, "'%.*s': a device name is 1-%d of A-Z a-z 0-9 _ -",
			 (int)nlen, spec, ZN_SIM_NAME_MAX);
		return -EINVAL;
	}
	comma = strchr(eq + 1, ',');
	mlen = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
	if (mlen == 0 || mlen > ZN_SIM_NAME_MAX) {
		snprintf(err, errlen, "'%s': missing or bad model name", spec);
		return -EINVAL;
	}
	memcpy(model, eq + 1, mlen);
	model[mlen] = '\0';
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	memcpy(d->name, spec, nlen);
	d->ops = zn_sim_model_find(model);
	if (!d->ops) {
		snprintf(err, errlen, "unknown model '%s' (see --list-models)", model);
		ret = -ENOENT;
		goto err_free;
	}
	ret = zn_sim_args_parse(comma ? comma + 1 : NULL, &args, err, errlen);
	if (ret)
		goto err_free;
	ret = zn_vfu_dev_new(d->name, &d->dev);
	if (ret) {
		snprintf(err, errlen, "%s: %s", d->name, strerror(-ret));
		goto err_free;
	}
	ret = d->ops->create(d->dev, &args, &d->model, err, errlen);
	if (ret)
		goto err_dev;
	ret = zn_sim_args_check_used(&args, model, err, errlen);
	if (ret)
		goto err_model;
	*out = d;
	return 0;

err_model:
	zn_vfu_dev_free(d->dev);
	d->ops->destroy(d->model);
	free(d);
	return ret;
err_dev:
	zn_vfu_dev_free(d->dev);
err_free:
	free(d);
	return ret;
}

void zn_sim_device_free(struct zn_sim_device *d)
{
	if (!d)
		return;
	/* The server first: closing a client resets the model, which must
	 * still be there. */
	zn_vfu_dev_free(d->dev);
	d->ops->destroy(d->model);
	zn_sim_fault_free(d->fault);
	free(d);
}

static bool dma_gate(void *ctx)
{
	return zn_sim_fault_dma_refuse(ctx);
}

int zn_sim_device_faults(struct zn_sim_device *d, const char *kvs, char *err, size_t errlen)
{
	unsigned n = zn_sim_device_nports(d);

	if (n == 0) {
		snprintf(err, errlen, "device '%s' (model %s) has no network port for faults",
			 d->name, d->ops->name);
		return -EINVAL;
	}
	if (!d->fault) {
		d->fault = zn_sim_fault_new();
		if (!d->fault) {
			snprintf(err, errlen, "no memory");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < n; i++)
			zn_sim_device_port(d, i)->fault = d->fault;
		zn_vfu_dev_set_dma_gate(d->dev, dma_gate, d->fault);
	}
	return zn_sim_fault_apply(d->fault, kvs, err, errlen);
}

struct prefix_ctx {
	const char *name;
	zn_vfu_emit_fn emit;
	void *ctx;
};

static void emit_model(void *arg, const char *key, uint64_t v)
{
	struct prefix_ctx *p = arg;
	char full[ZN_SIM_NAME_MAX + 128];

	snprintf(full, sizeof(full), "%s.model.%s", p->name, key);
	p->emit(p->ctx, full, v);
}

static void emit_fault(void *arg, const char *key, uint64_t v)
{
	struct prefix_ctx *p = arg;
	char full[ZN_SIM_NAME_MAX + 128];

	snprintf(full, sizeof(full), "%s.fault.%s", p->name, key);
	p->emit(p->ctx, full, v);
}

void zn_sim_device_stats(struct zn_sim_device *d, zn_vfu_emit_fn emit, void *ctx)
{
	struct prefix_ctx p = { d->name, emit, ctx };

	zn_vfu_dev_stats_emit(d->dev, emit, ctx);
	if (d->ops->stats)
		d->ops->stats(d->model, emit_model, &p);
	if (d->fault)
		zn_sim_fault_stats(d->fault, emit_fault, &p);
}

unsigned zn_sim_device_nports(struct zn_sim_device *d)
{
	return d->ops->nports ? d->ops->nports(d->model) : 0;
}

struct zn_sim_port *zn_sim_device_port(struct zn_sim_device *d, unsigned index)
{
	return index < zn_sim_device_nports(d) ? d->ops->port(d->model, index) : NULL;
}
