/* server: an umbrella that includes every core module's interface. No file
 * in src/ or persistence/ includes it: each includes the narrow headers it
 * uses (client.h, commands.h, db.h, server_state.h, ...), so its includes say
 * what it depends on. It stays so that code written against the old
 * all-in-one header on branches that have not moved to the narrow headers
 * yet still builds after a rebase; new code should not include it. */
#ifndef CAIRN_SERVER_H
#define CAIRN_SERVER_H

#include "args.h"
#include "client.h"
#include "commands.h"
#include "config.h"
#include "conn.h"
#include "db.h"
#include "dict.h"
#include "event.h"
#include "info.h"
#include "keys.h"
#include "lfu.h"
#include "log.h"
#include "multi.h"
#include "object.h"
#include "propagate.h"
#include "pubsub.h"
#include "reply.h"
#include "resp.h"
#include "sds.h"
#include "server_state.h"
#include "slowlog.h"
#include "tracking.h"
#include "util.h"
#include "zmalloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#endif
