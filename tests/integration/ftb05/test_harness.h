/*
 * A tiny test harness for the plain C tests of the FTB 0.5 C API (no
 * Boost.Test from C). A test program defines cases as `static void name(void)`
 * and runs them with RUN(name) from main, which returns ftb05_test_result().
 *
 *   CHECK(cond)            records a failure and goes on
 *   CHECK_RC(expr, code)   expr must return code; prints both numbers if not
 *   REQUIRE_RC(expr, code) same, and returns from the case on failure
 *
 * Waiting is by polling a condition with a deadline (ftb05_poll_event_for),
 * never by a fixed sleep. Build with -D_POSIX_C_SOURCE=200809L.
 */
#ifndef FTB05_TEST_HARNESS_H
#define FTB05_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "libftb.h"

static int ftb05_failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++ftb05_failures;                                                        \
        }                                                                            \
    } while (0)

#define CHECK_RC(expr, expected)                                                        \
    do {                                                                                \
        int rc_ = (expr);                                                               \
        if (rc_ != (expected)) {                                                        \
            fprintf(stderr, "%s:%d: %s returned %d, expected %s (%d)\n", __FILE__,      \
                    __LINE__, #expr, rc_, #expected, (int)(expected));                  \
            ++ftb05_failures;                                                           \
        }                                                                               \
    } while (0)

#define REQUIRE_RC(expr, expected)                                                      \
    do {                                                                                \
        int rc_ = (expr);                                                               \
        if (rc_ != (expected)) {                                                        \
            fprintf(stderr, "%s:%d: %s returned %d, expected %s (%d); case aborted\n",  \
                    __FILE__, __LINE__, #expr, rc_, #expected, (int)(expected));        \
            ++ftb05_failures;                                                           \
            return;                                                                     \
        }                                                                               \
    } while (0)

#define RUN(test_case) ftb05_run(#test_case, test_case)

static inline void ftb05_run(const char *name, void (*test_case)(void)) {
    int before = ftb05_failures;
    fprintf(stderr, "[ RUN  ] %s\n", name);
    test_case();
    fprintf(stderr, "[ %s ] %s\n", ftb05_failures == before ? " OK " : "FAIL", name);
}

static inline int ftb05_test_result(void) {
    if (ftb05_failures != 0) {
        fprintf(stderr, "%d check(s) failed\n", ftb05_failures);
        return 1;
    }
    fprintf(stderr, "all checks passed\n");
    return 0;
}

static inline double ftb05_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static inline void ftb05_pause_1ms(void) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* FTB_Poll_event until it returns something other than FTB_GOT_NO_EVENT, or
   timeout_ms passes (then FTB_GOT_NO_EVENT). */
static inline int ftb05_poll_event_for(FTB_subscribe_handle_t shandle, FTB_receive_event_t *event,
                                int timeout_ms) {
    double deadline = ftb05_now_ms() + timeout_ms;
    for (;;) {
        int rc = FTB_Poll_event(shandle, event);
        if (rc != FTB_GOT_NO_EVENT || ftb05_now_ms() > deadline) return rc;
        ftb05_pause_1ms();
    }
}

/* Waits until *counter (updated by a callback thread) reaches at least target. */
static inline int ftb05_wait_count(volatile int *counter, int target, int timeout_ms) {
    double deadline = ftb05_now_ms() + timeout_ms;
    while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < target) {
        if (ftb05_now_ms() > deadline) return 0;
        ftb05_pause_1ms();
    }
    return 1;
}

/* strncpy without its warnings: copies at most cap - 1 bytes, terminates. */
static inline void ftb05_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Fills an FTB_client_t. */
static inline void ftb05_client_info(FTB_client_t *info, const char *space, const char *name,
                              const char *jobid, const char *style, int queue_len) {
    memset(info, 0, sizeof *info);
    strcpy(info->client_schema_ver, "0.5");
    ftb05_copy(info->event_space, sizeof info->event_space, space);
    ftb05_copy(info->client_name, sizeof info->client_name, name);
    ftb05_copy(info->client_jobid, sizeof info->client_jobid, jobid);
    ftb05_copy(info->client_subscription_style, sizeof info->client_subscription_style, style);
    info->client_polling_queue_len = queue_len;
}

/* Connects a client, failing the current check when FTB_Connect does not succeed. */
static inline FTB_client_handle_t ftb05_connect(const char *space, const char *name,
                                                const char *jobid, const char *style,
                                                int queue_len) {
    FTB_client_t info;
    FTB_client_handle_t handle;
    memset(&handle, 0, sizeof handle);
    ftb05_client_info(&info, space, name, jobid, style, queue_len);
    CHECK_RC(FTB_Connect(&info, &handle), FTB_SUCCESS);
    return handle;
}

#endif /* FTB05_TEST_HARNESS_H */
