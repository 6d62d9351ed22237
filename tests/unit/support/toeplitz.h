/* SPDX-License-Identifier: MIT */
/*
 * An independent Toeplitz hash for tests: the RSS hash as Microsoft's
 * "RSS hashing functions" page defines it (ComputeHash over a byte stream,
 * most significant bit of input[0] first, XOR of the key's sliding 32-bit
 * window for every set bit), written from that definition alone so that it
 * can judge the device model's and the driver's RSS.
 *
 * Tuples are laid out as the same page orders them, all in network byte
 * order: source address, destination address, then (4-tuple types) source
 * port, destination port.
 */
#ifndef ZCNIC_TEST_TOEPLITZ_H
#define ZCNIC_TEST_TOEPLITZ_H

#include <stddef.h>
#include <stdint.h>

#define TOEPLITZ_KEY_MAX 40	/* bytes; the standard RSS key length */
#define TOEPLITZ_IN_MAX 36	/* IPv6 4-tuple: 16 + 16 + 2 + 2 */

/* The key of Microsoft's "Verifying the RSS Hash Calculation" page. */
extern const uint8_t toeplitz_ms_key[TOEPLITZ_KEY_MAX];

/*
 * Hash len input bytes with key_len key bytes (at most TOEPLITZ_KEY_MAX).
 * Key bits past key_len count as zero, so a key shorter than len + 4 bytes
 * gives the hash a zero-extended key would.
 */
uint32_t toeplitz_hash(const uint8_t *key, size_t key_len, const uint8_t *in, size_t len);

/*
 * Build the hash input of an IPv4 / IPv6 tuple into out (TOEPLITZ_IN_MAX
 * bytes) and return its length. Addresses are 4 / 16 bytes as on the wire;
 * ports are host-order numbers, written big-endian; with_ports = 0 gives the
 * 2-tuple (addresses only) input.
 */
size_t toeplitz_input_v4(uint8_t *out, const uint8_t src[4], const uint8_t dst[4],
			 uint16_t sport, uint16_t dport, int with_ports);
size_t toeplitz_input_v6(uint8_t *out, const uint8_t src[16], const uint8_t dst[16],
			 uint16_t sport, uint16_t dport, int with_ports);

/* The two together: hash of an IPv4 / IPv6 2- or 4-tuple. */
uint32_t toeplitz_v4(const uint8_t *key, size_t key_len, const uint8_t src[4],
		     const uint8_t dst[4], uint16_t sport, uint16_t dport, int with_ports);
uint32_t toeplitz_v6(const uint8_t *key, size_t key_len, const uint8_t src[16],
		     const uint8_t dst[16], uint16_t sport, uint16_t dport, int with_ports);

#endif
