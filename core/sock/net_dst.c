/* SPDX-License-Identifier: MIT */
/*
 * A destination address as the SQE or msghdr names it, read without
 * trusting the pointer (core/mem/ucopy.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "core/sock/net_ops.h"

int zn_net_dst_read(const void *uaddr, int64_t ulen, struct net_dst *d)
{
	struct sockaddr_storage ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;

	/* move_addr_to_kernel(): length checked, then the whole of it read */
	if (ulen < 0 || ulen > (int64_t)sizeof(ss))
		return -EINVAL;
	memset(&ss, 0, sizeof(ss));
	if (ulen && zn_ucopy_from(&ss, uaddr, (size_t)ulen))
		return -EFAULT;
	/* udp_sendmsg(): these fail at send time, like the kernel's */
	d->state = NET_DST_BAD;
	if (ulen < (int64_t)sizeof(*sin)) {
		d->err = -EINVAL;
	} else if (sin->sin_family != AF_INET && sin->sin_family != AF_UNSPEC) {
		d->err = -EAFNOSUPPORT;
	} else if (!sin->sin_port || !sin->sin_addr.s_addr) {
		/* port 0 is the kernel's -EINVAL; 0.0.0.0 (the kernel's "this
		 * host") has no meaning on a NIC we drive: also -EINVAL */
		d->err = -EINVAL;
	} else {
		d->state = NET_DST_OK;
		d->err = 0;
		d->ip = sin->sin_addr.s_addr;
		d->port = sin->sin_port;
	}
	return 0;
}
