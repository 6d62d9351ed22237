/* SPDX-License-Identifier: MIT */
/*
 * zn-nicsim --pcap FILE: every frame that crosses a wire, written by
 * libpcap (pcap_open_dead + pcap_dump_open: the classic pcap format that
 * tcpdump and Wireshark read), Ethernet link type, whole frames, stamped
 * with the time the wire took them.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "nicsim.h"
#include "sim/wire.h"

#define PCAP_SNAPLEN	ZN_SIM_FRAME_MAX
#define FLUSH_EVERY	64	/* frames between flushes: a reader sees them soon */

static struct {
	pcap_t *p;
	pcap_dumper_t *d;
	unsigned since_flush;
	unsigned long long frames;
} cap;

static void tap(void *ctx, const struct zn_sim_port *port, const void *frame, size_t len)
{
	struct pcap_pkthdr h;

	(void)ctx;
	(void)port;
	gettimeofday(&h.ts, NULL);
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)cap.d, &h, frame);
	cap.frames++;
	if (++cap.since_flush >= FLUSH_EVERY) {
		pcap_dump_flush(cap.d);
		cap.since_flush = 0;
	}
}

int nicsim_pcap_open(const char *path)
{
	cap.p = pcap_open_dead(DLT_EN10MB, PCAP_SNAPLEN);
	if (!cap.p) {
		fprintf(stderr, "zn-nicsim: --pcap: libpcap cannot make a capture handle\n");
		return -ENOMEM;
	}
	cap.d = pcap_dump_open(cap.p, path);
	if (!cap.d) {
		fprintf(stderr, "zn-nicsim: --pcap %s: %s\n", path, pcap_geterr(cap.p));
		pcap_close(cap.p);
		cap.p = NULL;
		return -EIO;
	}
	zn_sim_wire_set_tap(tap, NULL);
	return 0;
}

void nicsim_pcap_flush(void)
{
	if (cap.d)
		pcap_dump_flush(cap.d);
}

void nicsim_pcap_close(void)
{
	if (!cap.d)
		return;
	zn_sim_wire_set_tap(NULL, NULL);
	pcap_dump_close(cap.d);
	pcap_close(cap.p);
	printf("zn-nicsim: %llu frames written to the pcap file\n", cap.frames);
	cap.d = NULL;
	cap.p = NULL;
}
