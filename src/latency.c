/* latency: Redis 7.0's latency monitor and per-command latency histograms.
 *
 * The monitor: when latency-monitor-threshold (ms) is set, commandCall
 * reports every command at least that slow as a "command" or
 * "fast-command" event. Each event class keeps its all-time maximum and
 * the last 160 samples, one per second (a second slower sample in the same
 * second replaces the earlier one), which LATENCY LATEST / HISTORY / GRAPH
 * / DOCTOR show and LATENCY RESET forgets.
 *
 * The histograms: with latency-tracking on, every command execution is
 * counted in its command's histogram: power-of-two buckets of nanoseconds,
 * the first ending at 1024 ns, the range Redis tracks (1 ns .. 1 s). LATENCY
 * HISTOGRAM replies Redis' format (calls, then cumulative counts keyed by
 * each non-empty bucket's upper bound in microseconds) and INFO
 * latencystats the bucket bounds of latency-tracking-info-percentiles. Redis uses an HDR histogram
 * with finer buckets, so its percentiles can be a little lower than ours;
 * the bucket bounds LATENCY HISTOGRAM shows are the same. */
#include "client.h"
#include "commands.h"
#include "config.h"
#include "reply.h"
#include "sds.h"
#include "server_state.h"
#include "zmalloc.h"
#include "latency.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- the monitor ---- */

#define LATENCY_TS_LEN 160

typedef struct latencySample {
    int32_t time; /* unix seconds, 0: empty slot */
    uint32_t latency;
} latencySample;

typedef struct latencySeries {
    const char *event;
    int idx; /* next slot */
    uint32_t max;
    latencySample samples[LATENCY_TS_LEN];
    struct latencySeries *next;
} latencySeries;

static latencySeries *latency_events;

static latencySeries *latencyFind(const char *event) {
    for (latencySeries *ts = latency_events; ts; ts = ts->next)
        if (!strcasecmp(ts->event, event)) return ts;
    return NULL;
}

void latencyAddSampleIfNeeded(const char *event, long long ms) {
    if (!cfg.latency_monitor_threshold || ms < cfg.latency_monitor_threshold) return;
    latencySeries *ts = latencyFind(event);
    if (!ts) {
        ts = zcalloc(sizeof(*ts));
        ts->event = event;
        ts->next = latency_events;
        latency_events = ts;
    }
    int32_t now = (int32_t)time(NULL);
    if (ms > (long long)ts->max) ts->max = (uint32_t)ms;
    int prev = (ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN;
    if (ts->samples[prev].time == now) {
        if (ms > (long long)ts->samples[prev].latency) ts->samples[prev].latency = (uint32_t)ms;
        return;
    }
    ts->samples[ts->idx].time = now;
    ts->samples[ts->idx].latency = (uint32_t)ms;
    ts->idx = (ts->idx + 1) % LATENCY_TS_LEN;
}

static int latencyResetEvent(const char *event) {
    for (latencySeries **p = &latency_events; *p; p = &(*p)->next)
        if (!strcasecmp((*p)->event, event)) {
            latencySeries *ts = *p;
            *p = ts->next;
            zfree(ts);
            return 1;
        }
    return 0;
}

static void latencyReplyLatest(client *c) {
    long n = 0;
    for (latencySeries *ts = latency_events; ts; ts = ts->next) n++;
    replyArrayLen(c, n);
    for (latencySeries *ts = latency_events; ts; ts = ts->next) {
        int last = (ts->idx + LATENCY_TS_LEN - 1) % LATENCY_TS_LEN;
        replyArrayLen(c, 4);
        replyBulkCString(c, ts->event);
        replyLongLong(c, ts->samples[last].time);
        replyLongLong(c, ts->samples[last].latency);
        replyLongLong(c, ts->max);
    }
}

static void latencyReplyHistory(client *c, latencySeries *ts) {
    if (!ts) {
        replyArrayLen(c, 0);
        return;
    }
    void *dl = replyDeferredLen(c);
    long n = 0;
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        latencySample *s = &ts->samples[(ts->idx + j) % LATENCY_TS_LEN];
        if (!s->time) continue;
        replyArrayLen(c, 2);
        replyLongLong(c, s->time);
        replyLongLong(c, s->latency);
        n++;
    }
    replySetDeferredArrayLen(c, dl, n);
}

/* A column per sample, oldest left, '#' up to the sample's share of the
 * series' range; under it the sample's age. */
static sds latencyGraph(sds s, latencySeries *ts) {
    uint32_t lo = UINT32_MAX, hi = 0;
    int n = 0;
    latencySample v[LATENCY_TS_LEN];
    for (int j = 0; j < LATENCY_TS_LEN; j++) {
        latencySample *x = &ts->samples[(ts->idx + j) % LATENCY_TS_LEN];
        if (!x->time) continue;
        v[n++] = *x;
        if (x->latency < lo) lo = x->latency;
        if (x->latency > hi) hi = x->latency;
    }
    s = sdscatprintf(s, "%s - high %u ms, low %u ms (all time high %u ms)\n", ts->event, hi, lo,
                     ts->max);
    for (int j = 0; j < 80; j++) s = sdscatlen(s, "-", 1);
    s = sdscatlen(s, "\n", 1);
    const int rows = 4;
    for (int r = rows; r >= 1; r--) {
        for (int j = 0; j < n; j++) {
            uint32_t span = hi - lo ? hi - lo : 1;
            int h = hi == lo ? rows : 1 + (int)((uint64_t)(v[j].latency - lo) * (rows - 1) / span);
            s = sdscatlen(s, h >= r ? "#" : " ", 1);
        }
        s = sdscatlen(s, "\n", 1);
    }
    time_t now = time(NULL);
    for (int j = 0; j < n; j++) {
        long age = (long)(now - v[j].time);
        char unit = 's';
        if (age >= 3600)
            age /= 3600, unit = 'h';
        else if (age >= 60)
            age /= 60, unit = 'm';
        s = sdscatprintf(s, "%ld%c%s", age, unit, j + 1 < n ? " " : "");
    }
    return sdscatlen(s, "\n", 1);
}

static sds latencyDoctor(sds s) {
    if (!cfg.latency_monitor_threshold)
        return sdscat(s, "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this "
                         "Redis instance. You may use \"CONFIG SET latency-monitor-threshold "
                         "<milliseconds>.\" in order to enable it. If we weren't in a deep space "
                         "mission I'd suggest to take a look at "
                         "https://redis.io/topics/latency-monitor.\n");
    if (!latency_events)
        return sdscat(s, "Dave, no latency spike was observed during the lifetime of this Redis "
                         "instance, not in the slightest bit. I honestly think you ought to sleep "
                         "better tonight.\n");
    s = sdscat(s, "Dave, I have observed latency spikes in this Redis instance. You don't mind "
                  "talking about it, do you Dave?\n\n");
    int j = 1;
    for (latencySeries *ts = latency_events; ts; ts = ts->next, j++) {
        long long sum = 0;
        int n = 0;
        for (int k = 0; k < LATENCY_TS_LEN; k++)
            if (ts->samples[k].time) sum += ts->samples[k].latency, n++;
        s = sdscatprintf(s,
                         "%d. %s: %d latency spikes (average %lldms). Worst all time event "
                         "%ums.\n",
                         j, ts->event, n, n ? sum / n : 0, ts->max);
    }
    return sdscat(s, "\nI have no advice for you, Dave: slow commands are best found with "
                     "SLOWLOG GET.\n");
}

/* ---- per-command histograms ---- */

#define LATENCY_HIST_BUCKETS 21 /* 1024 ns << 20 > 1 s, the top of the range */
#define LATENCY_HIST_MAX_NS  1000000000LL

/* hist[0] is the number of calls, hist[1 + k] the calls of bucket k. */
void latencyRecordCommand(cairnCommand *cmd, long long us) {
    if (!cfg.latency_tracking_enabled) return;
    if (!cmd->latency_hist)
        cmd->latency_hist = zcalloc(sizeof(uint64_t) * (1 + LATENCY_HIST_BUCKETS));
    long long ns = us * 1000;
    if (ns < 1) ns = 1;
    if (ns > LATENCY_HIST_MAX_NS) ns = LATENCY_HIST_MAX_NS;
    int k = 0;
    while (k < LATENCY_HIST_BUCKETS - 1 && ns >= (1024LL << k)) k++;
    cmd->latency_hist[0]++;
    cmd->latency_hist[1 + k]++;
}

void latencyResetCommand(cairnCommand *cmd) {
    zfree(cmd->latency_hist);
    cmd->latency_hist = NULL;
}

static long long latencyBucketTopNs(int k) {
    return (1024LL << k) - 1;
}

static void latencyReplyHistogram(client *c, cairnCommand *cmd) {
    replyBulkBuf(c, cmd->fullname, sdslen(cmd->fullname));
    replyMapLen(c, 2);
    replyBulkCString(c, "calls");
    replyLongLong(c, (long long)cmd->latency_hist[0]);
    replyBulkCString(c, "histogram_usec");
    int n = 0;
    for (int k = 0; k < LATENCY_HIST_BUCKETS; k++)
        if (cmd->latency_hist[1 + k]) n++;
    replyMapLen(c, n);
    uint64_t cum = 0;
    for (int k = 0; k < LATENCY_HIST_BUCKETS; k++) {
        if (!cmd->latency_hist[1 + k]) continue;
        cum += cmd->latency_hist[1 + k];
        replyLongLong(c, latencyBucketTopNs(k) / 1000);
        replyLongLong(c, (long long)cum);
    }
}

static double latencyPercentileUs(const uint64_t *hist, double p) {
    uint64_t want = (uint64_t)(p / 100.0 * (double)hist[0] + 0.5);
    if (want < 1) want = 1;
    uint64_t cum = 0;
    for (int k = 0; k < LATENCY_HIST_BUCKETS; k++) {
        cum += hist[1 + k];
        if (cum >= want) return (double)latencyBucketTopNs(k) / 1000.0;
    }
    return (double)LATENCY_HIST_MAX_NS / 1000.0;
}

static sds latencyInfoCommand(sds s, cairnCommand *cmd) {
    if (cmd->latency_hist && cmd->latency_hist[0]) {
        s = sdscatprintf(s, "latency_percentiles_usec_%s:", cmd->fullname);
        for (int j = 0; j < cfg.latency_percentiles_len; j++) {
            double p = cfg.latency_percentiles[j];
            s = latencyFormatPercentile(sdscat(s, j ? ",p" : "p"), p);
            s = sdscatprintf(s, "=%.3f", latencyPercentileUs(cmd->latency_hist, p));
        }
        s = sdscat(s, "\r\n");
    }
    for (cairnCommand *sub = cmd->subcommands; sub && sub->name; sub++)
        s = latencyInfoCommand(s, sub);
    return s;
}

sds latencyInfoSection(sds s) {
    s = sdscat(s, "# Latencystats\r\n");
    for (cairnCommand *cmd = server.commands_list; cmd->name; cmd++) s = latencyInfoCommand(s, cmd);
    return s;
}

/* ---- the latency-tracking-info-percentiles directive (config.c's table) ---- */

/* latency-tracking-info-percentiles: the percentiles INFO latencystats
 * shows; "" means none. */
int latencyPercentilesSet(sds *argv, int argc, const char **err) {
    if (argc == 1 && !argv[0][0]) argc = 0;
    double *v = argc ? zmalloc(sizeof(double) * (size_t)argc) : NULL;
    for (int j = 0; j < argc; j++) {
        char *end;
        errno = 0;
        v[j] = strtod(argv[j], &end);
        if (!argv[j][0] || *end || errno || isspace((unsigned char)argv[j][0]) || isnan(v[j])) {
            zfree(v);
            *err = "Invalid latency-tracking-info-percentiles parameters";
            return 0;
        }
        if (v[j] > 100.0 || v[j] < 0.0) {
            zfree(v);
            *err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
            return 0;
        }
    }
    zfree(cfg.latency_percentiles);
    cfg.latency_percentiles = v;
    cfg.latency_percentiles_len = argc;
    return 1;
}

sds latencyFormatPercentile(sds s, double p) {
    char buf[128];
    int len = snprintf(buf, sizeof(buf), "%f", p);
    /* "%f" then without trailing zeros (and point): 99.900000 -> 99.9 */
    if (strchr(buf, '.')) {
        while (len > 0 && buf[len - 1] == '0') len--;
        if (len > 0 && buf[len - 1] == '.') len--;
    }
    return sdscatlen(s, buf, (size_t)len);
}

sds latencyPercentilesGet(void) {
    sds s = sdsempty();
    for (int j = 0; j < cfg.latency_percentiles_len; j++) {
        if (j) s = sdscatlen(s, " ", 1);
        s = latencyFormatPercentile(s, cfg.latency_percentiles[j]);
    }
    return s;
}

/* ---- LATENCY ---- */

static long latencyHistogramAll(client *c, cairnCommand *cmd) {
    long n = 0;
    if (cmd->latency_hist) {
        latencyReplyHistogram(c, cmd);
        n++;
    }
    for (cairnCommand *sub = cmd->subcommands; sub && sub->name; sub++)
        n += latencyHistogramAll(c, sub);
    return n;
}

void latencyCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the "
        "specified command names.",
        "    If no commands are specified then all histograms are replied.",
        NULL};
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        replyHelp(c, help);
    } else if (!strcasecmp(sub, "latest")) {
        latencyReplyLatest(c);
    } else if (!strcasecmp(sub, "history")) {
        latencyReplyHistory(c, latencyFind(c->argv[2]->ptr));
    } else if (!strcasecmp(sub, "graph")) {
        latencySeries *ts = latencyFind(c->argv[2]->ptr);
        if (!ts) {
            replyErrorFormat(c, "ERR No samples available for event '%s'", (char *)c->argv[2]->ptr);
            return;
        }
        sds g = latencyGraph(sdsempty(), ts);
        replyVerbatim(c, g, sdslen(g), "txt");
        sdsfree(g);
    } else if (!strcasecmp(sub, "doctor")) {
        sds d = latencyDoctor(sdsempty());
        replyVerbatim(c, d, sdslen(d), "txt");
        sdsfree(d);
    } else if (!strcasecmp(sub, "reset")) {
        long long n = 0;
        if (c->argc == 2) {
            while (latency_events) n += latencyResetEvent(latency_events->event);
        } else {
            for (int j = 2; j < c->argc; j++) n += latencyResetEvent(c->argv[j]->ptr);
        }
        replyLongLong(c, n);
    } else if (!strcasecmp(sub, "histogram")) {
        void *dl = replyDeferredLen(c);
        long n = 0;
        if (c->argc == 2) {
            for (cairnCommand *cmd = server.commands_list; cmd->name; cmd++)
                n += latencyHistogramAll(c, cmd);
        } else {
            for (int j = 2; j < c->argc; j++) {
                cairnCommand *cmd = commandLookupByName(c->argv[j]->ptr);
                if (cmd) n += latencyHistogramAll(c, cmd);
            }
        }
        replySetDeferredMapLen(c, dl, n);
    } else {
        replyErrorSubcommand(c);
    }
}
