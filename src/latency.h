/* latency: the latency monitor (LATENCY LATEST/HISTORY/RESET/GRAPH/DOCTOR)
 * and the per-command latency histograms (LATENCY HISTOGRAM, INFO
 * latencystats), see latency.c. */
#ifndef CAIRN_LATENCY_H
#define CAIRN_LATENCY_H

#include "sds.h"

struct client;
struct cairnCommand;

/* Records an event of `ms` milliseconds if latency-monitor-threshold is
 * set and reached. event is a static string ("command", ...). */
void latencyAddSampleIfNeeded(const char *event, long long ms);
/* One execution of cmd that took `us` microseconds (latency-tracking). */
void latencyRecordCommand(struct cairnCommand *cmd, long long us);
/* CONFIG RESETSTAT: forget cmd's histogram. */
void latencyResetCommand(struct cairnCommand *cmd);
/* INFO latencystats: one latency_percentiles_usec_<name> line per command
 * with data. */
sds latencyInfoSection(sds s);
void latencyCommand(struct client *c);
/* The latency-tracking-info-percentiles directive (config.c's table):
 * parse into cfg.latency_percentiles (0 and *err on error) and show. */
int latencyPercentilesSet(sds *argv, int argc, const char **err);
sds latencyPercentilesGet(void);
/* A percentile as that directive and INFO show it: "%f" without trailing
 * zeros (99.9, 50). */
sds latencyFormatPercentile(sds s, double p);

#endif
