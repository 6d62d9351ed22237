#!/usr/bin/env bash
# Cross-check include/compat/liburing/io_uring.h against the machine's own
# Linux uAPI header (<linux/io_uring.h> from the kernel headers package):
# every size, offset and constant the installed header knows must have the
# same value in zcnic's copy. Newer items (zcrx, RECV_ZC) are absent from
# older kernel headers and are covered by the _Static_asserts instead.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

if [ ! -f /usr/include/linux/io_uring.h ]; then
	echo "ok 1 - # SKIP no <linux/io_uring.h> on this machine"
	exit 0
fi

# X-macro list: S = sizeof, O = offsetof, E = enum constant (guarded by
# kernel-header version in the host program), M = macro (#ifdef-guarded).
cat >"$tmp/items.h" <<'C'
S(struct io_uring_sqe) S(struct io_uring_cqe) S(struct io_uring_params)
S(struct io_sqring_offsets) S(struct io_cqring_offsets)
S(struct io_uring_probe) S(struct io_uring_probe_op) S(struct io_uring_rsrc_update)
O(struct io_uring_sqe, opcode) O(struct io_uring_sqe, flags) O(struct io_uring_sqe, ioprio)
O(struct io_uring_sqe, fd) O(struct io_uring_sqe, off) O(struct io_uring_sqe, addr2)
O(struct io_uring_sqe, addr) O(struct io_uring_sqe, len) O(struct io_uring_sqe, rw_flags)
O(struct io_uring_sqe, msg_flags) O(struct io_uring_sqe, user_data)
O(struct io_uring_sqe, buf_index) O(struct io_uring_sqe, personality)
O(struct io_uring_sqe, splice_fd_in) O(struct io_uring_sqe, file_index)
O(struct io_uring_sqe, addr_len) O(struct io_uring_sqe, addr3) O(struct io_uring_sqe, cmd)
O(struct io_uring_sqe, msg_ring_flags)
O(struct io_uring_cqe, user_data) O(struct io_uring_cqe, res) O(struct io_uring_cqe, flags)
O(struct io_uring_cqe, big_cqe)
O(struct io_uring_params, sq_entries) O(struct io_uring_params, cq_entries)
O(struct io_uring_params, flags) O(struct io_uring_params, features)
O(struct io_uring_params, wq_fd) O(struct io_uring_params, resv)
O(struct io_uring_params, sq_off) O(struct io_uring_params, cq_off)
O(struct io_sqring_offsets, array) O(struct io_cqring_offsets, cqes)
O(struct io_cqring_offsets, flags)
E(IORING_OP_NOP) E(IORING_OP_READV) E(IORING_OP_ACCEPT) E(IORING_OP_SEND) E(IORING_OP_RECV)
E(IORING_OP_SHUTDOWN) E(IORING_OP_MSG_RING) E(IORING_OP_SOCKET) E(IORING_OP_URING_CMD)
E(IORING_OP_SEND_ZC) E(IORING_OP_SENDMSG_ZC)
E(IOSQE_FIXED_FILE_BIT) E(IOSQE_CQE_SKIP_SUCCESS_BIT)
E(IORING_REGISTER_BUFFERS) E(IORING_REGISTER_FILES) E(IORING_UNREGISTER_FILES)
E(IORING_REGISTER_PROBE) E(IORING_REGISTER_RING_FDS) E(IORING_REGISTER_PBUF_RING)
E(IORING_REGISTER_FILE_ALLOC_RANGE) E(IORING_MSG_DATA) E(IORING_MSG_SEND_FD)
M(IOSQE_FIXED_FILE) M(IOSQE_IO_DRAIN) M(IOSQE_IO_LINK) M(IOSQE_IO_HARDLINK) M(IOSQE_ASYNC)
M(IOSQE_BUFFER_SELECT) M(IOSQE_CQE_SKIP_SUCCESS)
M(IORING_SETUP_IOPOLL) M(IORING_SETUP_SQPOLL) M(IORING_SETUP_CQSIZE) M(IORING_SETUP_CLAMP)
M(IORING_SETUP_R_DISABLED) M(IORING_SETUP_SUBMIT_ALL) M(IORING_SETUP_COOP_TASKRUN)
M(IORING_SETUP_TASKRUN_FLAG) M(IORING_SETUP_SQE128) M(IORING_SETUP_CQE32)
M(IORING_SETUP_SINGLE_ISSUER) M(IORING_SETUP_DEFER_TASKRUN) M(IORING_SETUP_NO_MMAP)
M(IORING_SETUP_NO_SQARRAY) M(IORING_SETUP_CQE_MIXED)
M(IORING_CQE_F_BUFFER) M(IORING_CQE_F_MORE) M(IORING_CQE_F_SOCK_NONEMPTY) M(IORING_CQE_F_NOTIF)
M(IORING_CQE_F_BUF_MORE) M(IORING_CQE_BUFFER_SHIFT)
M(IORING_SQ_NEED_WAKEUP) M(IORING_SQ_CQ_OVERFLOW) M(IORING_SQ_TASKRUN)
M(IORING_ENTER_GETEVENTS) M(IORING_ENTER_EXT_ARG) M(IORING_ENTER_REGISTERED_RING)
M(IORING_FEAT_NODROP) M(IORING_FEAT_EXT_ARG) M(IORING_FEAT_CQE_SKIP) M(IORING_FEAT_LINKED_FILE)
M(IORING_RECVSEND_POLL_FIRST) M(IORING_RECV_MULTISHOT) M(IORING_RECVSEND_FIXED_BUF)
M(IORING_SEND_ZC_REPORT_USAGE) M(IORING_NOTIF_USAGE_ZC_COPIED)
M(IORING_MSG_RING_CQE_SKIP) M(IORING_MSG_RING_FLAGS_PASS)
M(IORING_FILE_INDEX_ALLOC) M(IORING_REGISTER_FILES_SKIP)
M(IORING_OFF_SQ_RING) M(IORING_OFF_CQ_RING) M(IORING_OFF_SQES)
C

gen() { # $1 include line, $2 1 = the host header (guard new enum items by version)
	cat <<C
#include <stddef.h>
#include <stdio.h>
#include <linux/version.h>
$1
#define S(t) printf("sizeof(%s) %zu\n", #t, sizeof(t));
#define O(t, f) printf("offsetof(%s, %s) %zu\n", #t, #f, offsetof(t, f));
#define E(x) printf("%s %lld\n", #x, (long long)(x));
#define M(x)
int main(void)
{
C
	if [ "$2" = 1 ]; then
		echo '#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)'
		echo '#include "items.h"'
		echo '#endif'
	else
		echo '#include "items.h"'
	fi
	echo '#undef S'; echo '#undef O'; echo '#undef E'; echo '#undef M'
	echo '#define S(t)'; echo '#define O(t, f)'; echo '#define E(x)'
	sed -n 's/.*/&/p' "$tmp/items.h" | grep -o 'M([A-Z_0-9]*)' | sed 's/M(\(.*\))/#ifdef \1\nprintf("\1 %lld\\n", (long long)(\1));\n#endif/'
	echo 'return 0; }'
}

gen '#include <linux/io_uring.h>' 1 >"$tmp/host.c"
gen '#include "liburing/io_uring.h"' 0 >"$tmp/ours.c"
if cc -std=gnu11 -I"$tmp" -o "$tmp/host" "$tmp/host.c" 2>"$tmp/err" && "$tmp/host" >"$tmp/host.txt"; then
	ok "a probe built against the machine's <linux/io_uring.h> ($(grep -c . "$tmp/host.txt") items)"
else
	notok "probe against <linux/io_uring.h> builds"; sed 's/^/# /' "$tmp/err"; exit 1
fi
if cc -std=gnu11 -I"$tmp" -Iinclude/compat -o "$tmp/ours" "$tmp/ours.c" 2>"$tmp/err" && "$tmp/ours" >"$tmp/ours.txt"; then
	ok "the same probe built against include/compat/liburing/io_uring.h"
else
	notok "probe against zcnic's io_uring.h builds"; sed 's/^/# /' "$tmp/err"; exit 1
fi
missing=$(grep -vxFf "$tmp/ours.txt" "$tmp/host.txt")
if [ -z "$missing" ] && [ "$(grep -c . "$tmp/host.txt")" -ge 60 ]; then
	ok "every size, offset and constant of the host header has the same value in zcnic's"
else
	notok "zcnic's io_uring.h agrees with the host header"
	echo "$missing" | while read -r l; do echo "# host: $l / zcnic: $(grep "^${l% *} " "$tmp/ours.txt")"; done
fi
exit $fail
