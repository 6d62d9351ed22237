/* Placeholder until the back end lands. */
#include <errno.h>
#include "zcnic/bus.h"
int zn_vfio_user_open(const char *path, const struct zn_bus_open_opts *opts, struct zn_bus_dev **out) { (void)path; (void)opts; (void)out; return -ENOSYS; }
