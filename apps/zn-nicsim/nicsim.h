/* SPDX-License-Identifier: MIT */
/* zn-nicsim internals: the command line and loop (main.c), capture (pcap.c). */
#ifndef ZN_NICSIM_APP_H
#define ZN_NICSIM_APP_H

/* Start writing every frame that crosses a wire to path: 0 or -errno (said). */
int nicsim_pcap_open(const char *path);
/* Make what was captured readable now (SIGUSR1). */
void nicsim_pcap_flush(void);
/* Finish the file (a no-op without --pcap). */
void nicsim_pcap_close(void);

#endif
