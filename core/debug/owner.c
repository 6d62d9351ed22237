/* The default report of a second thread entering an owned object (owner.h). */
#include <stdlib.h>

#include "core/debug/owner.h"
#include "zcnic/log.h"

static void owner_abort(const char *what, const char *file, int line)
{
	ZN_ERR("owner", "%s entered by a second thread (%s:%d): one thread per %s", what,
	       file, line, what);
	abort();
}

void (*zn_owner_violation)(const char *what, const char *file, int line) = owner_abort;
