/* SPDX-License-Identifier: MIT */
#ifndef LIBURING_VERSION_H
#define LIBURING_VERSION_H

/*
 * The liburing release whose interface the compat header follows
 * (axboe/liburing 2.15's names and behaviour); programs test it with
 * IO_URING_CHECK_VERSION and io_uring_check_version.
 */
#define IO_URING_VERSION_MAJOR 2
#define IO_URING_VERSION_MINOR 15

#endif
