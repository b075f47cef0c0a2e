/*
 * Round trips through the FTB 0.5 C API, as a 2009 FTB program would write
 * them: two processes answer each other's events by callback.
 *
 *   ftb05_pingpong pong                 answers every BENCH_PING with a BENCH_PONG
 *   ftb05_pingpong ping N WARMUP BYTES  publishes a ping, waits for its pong, N+WARMUP times
 *
 * ping prints the N measured round trips (rtt_ns=...) and its usage; pong
 * exits after the ping whose payload is "stop" and prints its usage.
 */
#include <pthread.h>

#include "bench/ftb05/bench_client.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static uint64_t pongs;
static int stop_seen;
static FTB_client_handle_t me;

static int on_ping(FTB_receive_event_t *event, void *arg) {
    FTB_event_properties_t props;
    FTB_event_handle_t handle;
    (void)arg;
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    memcpy(props.event_payload, event->event_payload, sizeof props.event_payload);
    if (FTB_Publish(me, "BENCH_PONG", &props, &handle) != FTB_SUCCESS) {
        fprintf(stderr, "pong: FTB_Publish failed\n");
    }
    if (strcmp(event->event_payload, "stop") == 0) {
        pthread_mutex_lock(&lock);
        stop_seen = 1;
        pthread_cond_signal(&changed);
        pthread_mutex_unlock(&lock);
    }
    return 0;
}

static int on_pong(FTB_receive_event_t *event, void *arg) {
    (void)event;
    (void)arg;
    pthread_mutex_lock(&lock);
    ++pongs;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    return 0;
}

static int run_pong(void) {
    FTB_subscribe_handle_t sub;
    me = bench_connect("FTB.BENCH.PONG", "pong", "BENCH_PONG");
    bench_subscribe(&sub, me, "event_space=FTB.BENCH.PING, event_name=BENCH_PING", on_ping);
    bench_say_ready();
    pthread_mutex_lock(&lock);
    while (!stop_seen) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    FTB_Disconnect(me);
    bench_print_usage("pong");
    return 0;
}

/* One round trip; 0 when the pong did not come within 1 s. */
static int round_trip(const FTB_event_properties_t *props) {
    FTB_event_handle_t handle;
    struct timespec deadline;
    int ok = 1;
    uint64_t before;
    pthread_mutex_lock(&lock);
    before = pongs;
    pthread_mutex_unlock(&lock);
    if (FTB_Publish(me, "BENCH_PING", (FTB_event_properties_t *)props, &handle) != FTB_SUCCESS) return 0;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    pthread_mutex_lock(&lock);
    while (pongs == before && ok) ok = pthread_cond_timedwait(&changed, &lock, &deadline) == 0;
    ok = pongs != before;
    pthread_mutex_unlock(&lock);
    return ok;
}

static int run_ping(long iterations, long warmup, long payload_bytes) {
    FTB_subscribe_handle_t sub;
    FTB_event_properties_t props;
    FTB_event_handle_t handle;
    long i, lost = 0;
    me = bench_connect("FTB.BENCH.PING", "ping", "BENCH_PING");
    bench_subscribe(&sub, me, "event_space=FTB.BENCH.PONG, event_name=BENCH_PONG", on_pong);
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    if (payload_bytes >= (long)sizeof props.event_payload) payload_bytes = sizeof props.event_payload - 1;
    memset(props.event_payload, 'p', (size_t)payload_bytes);
    bench_say_ready();
    for (i = 0; i < warmup + iterations; ++i) {
        uint64_t start = bench_now_ns();
        if (!round_trip(&props)) {
            ++lost;
            continue;
        }
        if (i >= warmup) printf("rtt_ns=%llu\n", (unsigned long long)(bench_now_ns() - start));
    }
    printf("timeouts=%ld\n", lost);
    bench_print_usage("ping");
    strcpy(props.event_payload, "stop");
    FTB_Publish(me, "BENCH_PING", &props, &handle);
    FTB_Disconnect(me);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "pong") == 0) return run_pong();
    if (argc == 5 && strcmp(argv[1], "ping") == 0) {
        return run_ping(atol(argv[2]), atol(argv[3]), atol(argv[4]));
    }
    fprintf(stderr, "usage: %s pong | ping ITERATIONS WARMUP PAYLOAD_BYTES\n", argv[0]);
    return 2;
}
