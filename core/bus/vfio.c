/* Placeholder until the back end lands. */
#include <errno.h>
#include "zcnic/bus.h"
int zn_vfio_open(const char *bdf, const struct zn_bus_open_opts *opts, struct zn_bus_dev **out) { (void)bdf; (void)opts; (void)out; return -ENOSYS; }
