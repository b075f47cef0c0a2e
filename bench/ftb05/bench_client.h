/*
 * What the two FTB 0.5 benchmark programs share: connecting with only
 * libftb.h, declaring one event, the monotonic clock, and the closing
 * "key=value" lines ftb_bench reads from their standard output.
 * The agent is found as any FTB 0.5 program finds it (FTB_AGENT_ENDPOINT).
 */
#ifndef FTB_BENCH_FTB05_BENCH_CLIENT_H
#define FTB_BENCH_FTB05_BENCH_CLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "libftb.h"

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void bench_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Connects under `space` as `name` (callbacks, no polling queue) and declares
   `event` at severity info; exits with status 3 and a line on stderr if the
   agent refuses. */
static inline FTB_client_handle_t bench_connect(const char *space, const char *name,
                                                const char *event) {
    FTB_client_t info;
    FTB_client_handle_t handle;
    FTB_event_info_t declared;
    int rc;
    memset(&info, 0, sizeof info);
    memset(&handle, 0, sizeof handle);
    strcpy(info.client_schema_ver, "0.5");
    bench_copy(info.event_space, sizeof info.event_space, space);
    bench_copy(info.client_name, sizeof info.client_name, name);
    bench_copy(info.client_jobid, sizeof info.client_jobid, "bench");
    bench_copy(info.client_subscription_style, sizeof info.client_subscription_style,
               "FTB_SUBSCRIPTION_NOTIFY");
    if ((rc = FTB_Connect(&info, &handle)) != FTB_SUCCESS) {
        fprintf(stderr, "%s: FTB_Connect returned %d\n", name, rc);
        exit(3);
    }
    memset(&declared, 0, sizeof declared);
    bench_copy(declared.event_name, sizeof declared.event_name, event);
    strcpy(declared.severity, "info");
    if ((rc = FTB_Declare_publishable_events(handle, NULL, &declared, 1)) != FTB_SUCCESS) {
        fprintf(stderr, "%s: FTB_Declare_publishable_events returned %d\n", name, rc);
        exit(3);
    }
    return handle;
}

static inline void bench_subscribe(FTB_subscribe_handle_t *sub, FTB_client_handle_t handle,
                                   const char *filter, int (*callback)(FTB_receive_event_t *, void *)) {
    int rc = FTB_Subscribe(sub, handle, filter, callback, NULL);
    if (rc != FTB_SUCCESS) {
        fprintf(stderr, "FTB_Subscribe(%s) returned %d\n", filter, rc);
        exit(3);
    }
}

/* The orchestrator starts the other side only after this line. */
static inline void bench_say_ready(void) {
    printf("ready\n");
    fflush(stdout);
}

/* This process's CPU time and voluntary context switches, all threads together. */
static inline void bench_print_usage(const char *prefix) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s_cpu_s=%.6f\n", prefix,
           ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    printf("%s_voluntary_switches=%ld\n", prefix, ru.ru_nvcsw);
}

#endif /* FTB_BENCH_FTB05_BENCH_CLIENT_H */
