/* SPDX-License-Identifier: MIT */
/*
 * Recovery (hw-docs/mlx5.md §13b): a function reset under the driver, or a
 * command that never completed, leaves a device that can be brought up
 * again. The sequence is Linux's after a reset (health.c's recovery and
 * main.c's mlx5_unload_one / mlx5_load_one): forget what the device held
 * without asking it, reset the function so that nothing it still runs
 * touches our memory, then the whole bring-up and the port's start again.
 *
 * What the caller holds survives: the queue structs (their rings and
 * buffers are ours), the port configuration, RSS and the flow rules, which
 * steering re-installs in their slots, so under the same rule ids. RX
 * buffers posted to the old RQs go back to their provider once the reset
 * is done (the device can no longer write them), and the new RQs take
 * fresh ones: no buffer lost, none handed twice. Frames the device wrote
 * but the data path had not read are lost with the ring, and counted as
 * drops; TX work the device had not completed comes back through tx_reap
 * (the caller's buffers are its own again), counted as errors. A fatal
 * firmware error is not recovered (the caller is told, as
 * before), nor is a DevX port, whose HCA belongs to mlx5_core.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "drivers/mlx5/mlx5.h"
#include "zcnic/log.h"

/* Frames the device completed that the data path had not read: the reset
 * takes them with the ring, counted as drops rather than lost silently.
 * The CQ is walked as the burst walks it (mlx5_rx.c), frames only. */
uint32_t zn_mlx5_rx_unread(const struct mlx5_rxq *rxq, uint32_t *ncqe)
{
	struct mlx5_rx_pos pos = rxq->pos;
	uint32_t n = 0, ci = rxq->cq.ci, size = 1u << rxq->cq.log_sz, i;

	for (i = 0; i < size; i++, ci++) {
		const struct zn_mlx5_cqe64 *cqe = &rxq->cq.cqe[ci & (size - 1)];
		struct mlx5_rx_cqe_info info;
		enum mlx5_rx_kind k;

		if (!zn_mlx5_cqe_sw_owned(cqe, ci, rxq->cq.log_sz))
			break;
		k = zn_mlx5_rx_cqe_parse(&rxq->c, &pos, cqe, &info);
		n += k == MLX5_RX_PKT;
		if (rxq->c.cyclic) {
			pos.done += k == MLX5_RX_PKT;
		} else if (k == MLX5_RX_PKT || k == MLX5_RX_FILLER) {
			pos.strides_used += info.strides;
			if (pos.strides_used == rxq->c.strides) {
				pos.strides_used = 0;
				pos.done++;
			}
		}
	}
	if (ncqe)
		*ncqe = i;
	return n;
}

/* The device forgot every object: drop ours without a command (a dead
 * device gets none), and return what the RQs held to its providers. */
static void forget_device(struct mlx5 *m)
{
	for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
		if (m->rxq[q] && m->started)
			m->rxq[q]->st.nobuf += zn_mlx5_rx_unread(m->rxq[q], NULL);
	/* TX work the reset took completes now (the caller's buffers are free
	 * again), in flight counted as errors */
	for (uint16_t q = 0; q < m->conf.nb_txq; q++)
		if (m->txq[q] && m->started)
			zn_mlx5_txq_flush(m->txq[q]);
	zn_mlx5_port_stop(m);
	zn_mlx5_hca_fini(m);
}

static const char *why_dead(const struct mlx5 *m)
{
	return m->reset_seen ? "the function was reset under the driver (the command queue "
			       "address reads back cleared)" : "a command timed out";
}

/* One line, and the port is gone for good: the caller is told -ENODEV. */
static int __attribute__((format(printf, 2, 3))) give_up(struct mlx5 *m, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ZN_ERR(MLX5_LOG, "%s", line);
	/* whatever the device still runs stops before close frees our memory */
	zn_bus_reset(m->bus);
	m->gone = true;
	m->dead = true;
	zn_mlx5_mark_dead(m);
	return -ENODEV;
}

int zn_mlx5_recover(struct mlx5 *m)
{
	bool started = m->started;
	uint64_t now;
	int rc;

	if (m->gone)
		return -ENODEV;
	if (!zn_mlx5_recoverable(m))
		return m->dead ? -EIO : 0;
	/* A device that needs a reset again and again is not coming back. */
	now = zn_mlx5_now_ms();
	m->recover_streak = m->recover_ms && now - m->recover_ms < MLX5_RECOVER_WINDOW_MS ?
			    m->recover_streak + 1 : 1;
	m->recover_ms = now;
	if (m->recover_streak > MLX5_RECOVER_MAX)
		return give_up(m, "%s: %s again, after %u resets in a row: the port stays down",
			       m->name, why_dead(m), MLX5_RECOVER_MAX);
	ZN_WARN(MLX5_LOG, "%s: %s: resetting the function and bringing the port back",
		m->name, why_dead(m));
	/* A timed-out command may still run in the device: the reset comes
	 * before any of our memory is given back or reused. */
	rc = zn_bus_reset(m->bus);
	forget_device(m);
	m->dead = false;
	m->reset_seen = false;
	m->cmd_timed_out = false;
	m->health_misses = 0;
	m->health_last = 0;
	if (rc == 0)
		rc = zn_bus_enable_bus_master(m->bus);
	if (rc == 0)
		rc = zn_mlx5_hca_init(m);
	if (rc == 0) {
		/* The new memory key may have another number; WQEs carry it. */
		for (uint16_t q = 0; q < m->conf.nb_rxq; q++)
			if (m->rxq[q]) {
				m->rxq[q]->lkey = m->lkey;
				zn_mlx5_rxq_reset(m->rxq[q]);
			}
		for (uint16_t q = 0; q < m->conf.nb_txq; q++)
			if (m->txq[q])
				m->txq[q]->lkey = m->lkey;
	}
	if (rc == 0 && started)
		rc = zn_mlx5_port_start(m);
	if (rc < 0)
		return give_up(m, "%s: the port did not come back after the reset: %s", m->name,
			       strerror(-rc));
	m->recoveries++;
	ZN_INFO(MLX5_LOG, "%s: the port is back (recovery %u)", m->name, m->recoveries);
	return 0;
}

int zn_mlx5_ensure_alive(struct mlx5 *m)
{
	if (m->gone)
		return -ENODEV;
	if (!m->dead && zn_mlx5_health_check(m) == 0)
		zn_mlx5_eq_poll(m);
	if (zn_mlx5_recoverable(m))
		return zn_mlx5_recover(m);
	if (m->dead) {
		zn_mlx5_mark_dead(m);
		return -EIO;
	}
	return 0;
}
