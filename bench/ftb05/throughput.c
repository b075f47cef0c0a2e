/*
 * One-way throughput through the FTB 0.5 C API, as a 2009 FTB program would
 * write it: a publisher loop and a subscriber that counts by callback.
 *
 *   ftb05_throughput sub N IDLE_MS        counts BENCH_DATA events until N arrived
 *                                         or none came for IDLE_MS
 *   ftb05_throughput pub N BYTES          publishes N events of BYTES payload
 *
 * sub prints how many arrived, the monotonic time of the last one and its
 * usage; pub prints the time of its first FTB_Publish, how many failed, and
 * its usage. Every FTB_Publish failure is counted: none is retried.
 */
#include <pthread.h>

#include "bench/ftb05/bench_client.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static uint64_t arrived;
static uint64_t last_arrival_ns;

static int on_data(FTB_receive_event_t *event, void *arg) {
    (void)event;
    (void)arg;
    pthread_mutex_lock(&lock);
    ++arrived;
    last_arrival_ns = bench_now_ns();
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    return 0;
}

static int run_sub(uint64_t expected, long idle_ms) {
    FTB_subscribe_handle_t sub;
    FTB_client_handle_t me = bench_connect("FTB.BENCH.SINK", "sink", "BENCH_UNUSED");
    bench_subscribe(&sub, me, "event_space=FTB.BENCH.TPUT, event_name=BENCH_DATA", on_data);
    bench_say_ready();
    pthread_mutex_lock(&lock);
    for (;;) {
        uint64_t seen = arrived;
        struct timespec deadline;
        if (seen >= expected) break;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += idle_ms / 1000;
        deadline.tv_nsec += (idle_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        while (arrived == seen) {
            if (pthread_cond_timedwait(&changed, &lock, &deadline) != 0) break;
        }
        if (arrived == seen) break; /* idle: the rest is not coming */
    }
    printf("delivered=%llu\n", (unsigned long long)arrived);
    printf("last_arrival_ns=%llu\n", (unsigned long long)last_arrival_ns);
    pthread_mutex_unlock(&lock);
    FTB_Disconnect(me);
    bench_print_usage("sub");
    return 0;
}

static int run_pub(uint64_t count, long payload_bytes) {
    FTB_client_handle_t me = bench_connect("FTB.BENCH.TPUT", "source", "BENCH_DATA");
    FTB_event_properties_t props;
    FTB_event_handle_t handle;
    uint64_t i, failed = 0, first_ns, last_ns;
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    if (payload_bytes >= (long)sizeof props.event_payload) payload_bytes = sizeof props.event_payload - 1;
    memset(props.event_payload, 'd', (size_t)payload_bytes);
    first_ns = bench_now_ns();
    for (i = 0; i < count; ++i) {
        if (FTB_Publish(me, "BENCH_DATA", &props, &handle) != FTB_SUCCESS) ++failed;
    }
    last_ns = bench_now_ns();
    printf("first_publish_ns=%llu\n", (unsigned long long)first_ns);
    printf("last_publish_ns=%llu\n", (unsigned long long)last_ns);
    printf("publish_failed=%llu\n", (unsigned long long)failed);
    FTB_Disconnect(me);
    bench_print_usage("pub");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "sub") == 0) return run_sub(strtoull(argv[2], NULL, 10), atol(argv[3]));
    if (argc == 4 && strcmp(argv[1], "pub") == 0) return run_pub(strtoull(argv[2], NULL, 10), atol(argv[3]));
    fprintf(stderr, "usage: %s sub COUNT IDLE_MS | pub COUNT PAYLOAD_BYTES\n", argv[0]);
    return 2;
}
