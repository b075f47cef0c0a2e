/*
 * Bursts through the FTB 0.5 C API against a real ftb-agent:
 * - FTB_Publish never fails because the SDK's publish buffer is momentarily
 *   full: it waits for the agent's acknowledgements (a buffer of 64 events and
 *   a burst of 20,000, nothing lost, in order), and fails only when the agent
 *   is gone for longer than FTB_PUBLISH_TIMEOUT_MS;
 * - a polling client's default queue holds a real burst (0.6.2 kept 64), and
 *   FTB_POLLING_QUEUE_LEN still lowers it.
 * Nothing waits by a fixed sleep: a marker event published after a burst is
 * in the polling queue only once every event before it is (per-publisher order).
 */
#include <stdlib.h>

#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

#define WAIT_MS 20000
#define BURST 20000

static void declare(FTB_client_handle_t handle, const char *name) {
    FTB_event_info_t info;
    memset(&info, 0, sizeof info);
    strcpy(info.event_name, name);
    strcpy(info.severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(handle, NULL, &info, 1), FTB_SUCCESS);
}

static int publish_number(FTB_client_handle_t handle, const char *name, int n) {
    FTB_event_properties_t props;
    FTB_event_handle_t eh;
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    sprintf(props.event_payload, "%d", n);
    return FTB_Publish(handle, name, &props, &eh);
}

/* Publishes DATA 0..count-1 and a MARKER; returns how many FTB_Publish calls failed. */
static int publish_burst(FTB_client_handle_t pub, int count) {
    int i, failed = 0;
    for (i = 0; i < count; ++i) {
        if (publish_number(pub, "DATA", i) != FTB_SUCCESS) ++failed;
    }
    if (publish_number(pub, "MARKER", -1) != FTB_SUCCESS) ++failed;
    return failed;
}

/* Polls DATA events after the marker arrived; checks they are first..last in order. */
static void expect_data(FTB_subscribe_handle_t marker, FTB_subscribe_handle_t data, int first, int last) {
    FTB_receive_event_t ev;
    int i, wrong = 0;
    REQUIRE_RC(ftb05_poll_event_for(marker, &ev, WAIT_MS), FTB_SUCCESS);
    for (i = first; i <= last; ++i) {
        if (FTB_Poll_event(data, &ev) != FTB_SUCCESS) {
            fprintf(stderr, "DATA %d is missing\n", i);
            ++wrong;
            break;
        }
        if (atoi(ev.event_payload) != i) {
            if (wrong++ < 3) fprintf(stderr, "expected DATA %d, got %s\n", i, ev.event_payload);
        }
    }
    CHECK(wrong == 0);
    CHECK_RC(FTB_Poll_event(data, &ev), FTB_GOT_NO_EVENT);
}

static void publish_waits_for_room_in_a_full_buffer(void) {
    FTB_client_handle_t pub, sub;
    FTB_subscribe_handle_t data, marker;
    /* A tiny buffer: the agent acknowledges every 2 ms, so a burst fills it
       again and again. Before, FTB_Publish failed with "publish buffer full". */
    setenv("FTB_PUBLISH_BUFFER_EVENTS", "64", 1);
    pub = ftb05_connect("FTB.TEST.BURST", "pub", "job1", "FTB_SUBSCRIPTION_NONE", 0);
    unsetenv("FTB_PUBLISH_BUFFER_EVENTS");
    sub = ftb05_connect("FTB.TEST.SINK", "sink", "job1", "FTB_SUBSCRIPTION_POLLING", 0);
    declare(pub, "DATA");
    declare(pub, "MARKER");
    REQUIRE_RC(FTB_Subscribe(&data, sub, "event_space=FTB.TEST.BURST, event_name=DATA", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&marker, sub, "event_space=FTB.TEST.BURST, event_name=MARKER", NULL, NULL),
               FTB_SUCCESS);
    /* The subscriber polls nothing until the burst is over (a slow subscriber). */
    CHECK_RC(publish_burst(pub, BURST), 0);
    expect_data(marker, data, 0, BURST - 1);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(sub), FTB_SUCCESS);
}

static void polling_queue_default_holds_a_burst(void) {
    FTB_client_handle_t pub = ftb05_connect("FTB.TEST.BURST2", "pub", "job1", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t sub = ftb05_connect("FTB.TEST.SINK2", "sink", "job1", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t data, marker;
    declare(pub, "DATA");
    declare(pub, "MARKER");
    REQUIRE_RC(FTB_Subscribe(&data, sub, "event_space=FTB.TEST.BURST2, event_name=DATA", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&marker, sub, "event_space=FTB.TEST.BURST2, event_name=MARKER", NULL, NULL),
               FTB_SUCCESS);
    /* ftb_grouping's 100 events per rank, from 10 ranks: 0.6.2's 64 lost most. */
    CHECK_RC(publish_burst(pub, 1000), 0);
    expect_data(marker, data, 0, 999);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(sub), FTB_SUCCESS);
}

static void polling_queue_setting_lowers_it(void) {
    FTB_client_handle_t pub = ftb05_connect("FTB.TEST.BURST3", "pub", "job1", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t sub;
    FTB_subscribe_handle_t data, marker;
    setenv("FTB_POLLING_QUEUE_LEN", "16", 1);
    sub = ftb05_connect("FTB.TEST.SINK3", "sink", "job1", "FTB_SUBSCRIPTION_POLLING", 0);
    unsetenv("FTB_POLLING_QUEUE_LEN");
    declare(pub, "DATA");
    declare(pub, "MARKER");
    REQUIRE_RC(FTB_Subscribe(&data, sub, "event_space=FTB.TEST.BURST3, event_name=DATA", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&marker, sub, "event_space=FTB.TEST.BURST3, event_name=MARKER", NULL, NULL),
               FTB_SUCCESS);
    /* A queue of 16 keeps the newest 15 DATA and the marker; the loss is told on stderr. */
    CHECK_RC(publish_burst(pub, 40), 0);
    expect_data(marker, data, 25, 39);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(sub), FTB_SUCCESS);
}

/* Last: stops the agent. */
static void publish_fails_once_the_agent_is_gone(void) {
    FTB_client_handle_t pub;
    int i, rc = FTB_SUCCESS;
    double started, waited;
    setenv("FTB_PUBLISH_BUFFER_EVENTS", "8", 1);
    setenv("FTB_PUBLISH_TIMEOUT_MS", "500", 1);
    pub = ftb05_connect("FTB.TEST.GONE", "pub", "job1", "FTB_SUBSCRIPTION_NONE", 0);
    unsetenv("FTB_PUBLISH_BUFFER_EVENTS");
    unsetenv("FTB_PUBLISH_TIMEOUT_MS");
    declare(pub, "DATA");
    ftb05_test_agent_stop();
    /* Eight fit in the buffer; the ninth waits for room, then fails. */
    for (i = 0; i < 8; ++i) CHECK_RC(publish_number(pub, "DATA", i), FTB_SUCCESS);
    started = ftb05_now_ms();
    rc = publish_number(pub, "DATA", 8);
    waited = ftb05_now_ms() - started;
    CHECK(rc != FTB_SUCCESS);
    CHECK(waited >= 400.0);
    CHECK(waited < 10000.0);
    fprintf(stderr, "FTB_Publish failed with %d after %.0f ms without the agent\n", rc, waited);
    (void)FTB_Disconnect(pub);
}

int main(void) {
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(publish_waits_for_room_in_a_full_buffer);
    RUN(polling_queue_default_holds_a_burst);
    RUN(polling_queue_setting_lowers_it);
    RUN(publish_fails_once_the_agent_is_gone);
    ftb05_test_agent_stop();
    return ftb05_test_result();
}
