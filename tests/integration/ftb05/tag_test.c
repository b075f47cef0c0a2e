/*
 * Dynamic tags (FTB_TAG): built with -DFTB_TAG, so it also exercises the
 * FTB_TAG ABI of subscribe, poll, callbacks and event handles (libftb.h maps
 * those to their *_tagabi symbols). Rules: API_NOTES.md §9.
 */
#include <stdlib.h>
#include <unistd.h>

#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

#ifndef FTB_TAG
#error "build with -DFTB_TAG"
#endif

#define WAIT_MS 20000  /* what a loaded 2-core machine may need; an arrival returns at once */

static volatile int callback_count;
static char callback_tag[16];

static int on_event(FTB_receive_event_t *event, void *arg) {
    FTB_tag_len_t len = sizeof callback_tag - 1;
    (void)arg;
    memset(callback_tag, 0, sizeof callback_tag);
    CHECK_RC(FTB_Read_tag(event, 7, callback_tag, &len), FTB_SUCCESS);
    __atomic_add_fetch(&callback_count, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void tags_travel_with_events(void) {
    FTB_client_handle_t a = ftb05_connect("FTB.TAG.A", "a", "", "FTB_SUBSCRIPTION_BOTH", 0);
    FTB_client_handle_t b = ftb05_connect("FTB.TAG.B", "b", "", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_subscribe_handle_t polled, notified;
    FTB_event_info_t info;
    FTB_event_handle_t sent, got;
    FTB_receive_event_t ev;
    FTB_tag_len_t len;
    char data[200];

    memset(&info, 0, sizeof info);
    strcpy(info.event_name, "TAGGED");
    strcpy(info.severity, "info");
    REQUIRE_RC(FTB_Declare_publishable_events(b, NULL, &info, 1), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&polled, a, "event_space=ftb.tag.b", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Add_tag(a, 7, "job42", 5), FTB_SUCCESS);
    REQUIRE_RC(FTB_Add_tag(a, 9, NULL, 0), FTB_SUCCESS);
    /* Tags are process-wide: b's events carry a's tags. */
    REQUIRE_RC(FTB_Publish(b, "TAGGED", NULL, &sent), FTB_SUCCESS);
    REQUIRE_RC(ftb05_poll_event_for(polled, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK((unsigned char)ev.dynamic_data[0] == 2);

    len = sizeof data;
    CHECK_RC(FTB_Read_tag(&ev, 7, data, &len), FTB_SUCCESS);
    CHECK(len == 5 && memcmp(data, "job42", 5) == 0);
    len = 4;
    CHECK_RC(FTB_Read_tag(&ev, 7, data, &len), FTB_ERR_TAG_NO_SPACE);
    CHECK(len == 4);
    len = 0;
    CHECK_RC(FTB_Read_tag(&ev, 9, NULL, &len), FTB_SUCCESS);
    CHECK(len == 0);
    len = sizeof data;
    CHECK_RC(FTB_Read_tag(&ev, 8, data, &len), FTB_ERR_TAG_NOT_FOUND);
    CHECK_RC(FTB_Read_tag(NULL, 7, data, &len), FTB_ERR_NULL_POINTER);
    CHECK_RC(FTB_Read_tag(&ev, 7, data, NULL), FTB_ERR_NULL_POINTER);

    /* Event handles through the FTB_TAG ABI. */
    REQUIRE_RC(FTB_Get_event_handle(ev, &got), FTB_SUCCESS);
    CHECK_RC(FTB_Compare_event_handles(got, sent), FTB_SUCCESS);

    /* Callbacks receive the FTB_TAG struct too. */
    REQUIRE_RC(FTB_Subscribe(&notified, a, "event_name=tagged", on_event, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Add_tag(a, 7, "job43", 5), FTB_SUCCESS); /* the owner replaces it */
    REQUIRE_RC(FTB_Publish(b, "TAGGED", NULL, &sent), FTB_SUCCESS);
    CHECK(ftb05_wait_count(&callback_count, 1, WAIT_MS));
    CHECK(strcmp(callback_tag, "job43") == 0);
    CHECK_RC(FTB_Unsubscribe(&notified), FTB_SUCCESS);

    /* Without tags an event's area is empty. */
    CHECK_RC(FTB_Remove_tag(a, 7), FTB_SUCCESS);
    CHECK_RC(FTB_Remove_tag(a, 9), FTB_SUCCESS);
    REQUIRE_RC(FTB_Publish(b, "TAGGED", NULL, &sent), FTB_SUCCESS);
    REQUIRE_RC(ftb05_poll_event_for(polled, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(ev.dynamic_data[0] == 0);
    len = sizeof data;
    CHECK_RC(FTB_Read_tag(&ev, 7, data, &len), FTB_ERR_TAG_NOT_FOUND);
    CHECK_RC(FTB_Disconnect(a), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(b), FTB_SUCCESS);
}

static void tag_ownership_and_space(void) {
    FTB_client_handle_t a = ftb05_connect("FTB.TAG.OWNA", "a", "", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t b = ftb05_connect("FTB.TAG.OWNB", "b", "", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t bad = a;
    char big[200];
    int i;

    memset(big, 'x', sizeof big);
    bad.valid = 0;
    CHECK_RC(FTB_Add_tag(bad, 1, "x", 1), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Remove_tag(bad, 1), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Add_tag(a, 1, NULL, 1), FTB_ERR_NULL_POINTER);

    CHECK_RC(FTB_Add_tag(a, 1, "mine", 4), FTB_SUCCESS);
    CHECK_RC(FTB_Add_tag(b, 1, "theirs", 6), FTB_ERR_TAG_CONFLICT);
    CHECK_RC(FTB_Remove_tag(b, 1), FTB_ERR_TAG_CONFLICT);
    CHECK_RC(FTB_Remove_tag(b, 2), FTB_ERR_TAG_NOT_FOUND);
    CHECK_RC(FTB_Remove_tag(a, 1), FTB_SUCCESS);
    CHECK_RC(FTB_Remove_tag(a, 1), FTB_ERR_TAG_NOT_FOUND);

    /* 138 bytes: the count, then 2 + len per tag. One tag holds 135 at most. */
    CHECK_RC(FTB_Add_tag(a, 1, big, 136), FTB_ERR_TAG_NO_SPACE);
    CHECK_RC(FTB_Add_tag(a, 1, big, 135), FTB_SUCCESS);
    CHECK_RC(FTB_Add_tag(b, 2, NULL, 0), FTB_ERR_TAG_NO_SPACE);
    /* The space check comes first, even for a replacement. */
    CHECK_RC(FTB_Add_tag(a, 1, big, 1), FTB_ERR_TAG_NO_SPACE);
    CHECK_RC(FTB_Remove_tag(a, 1), FTB_SUCCESS);
    for (i = 0; i < 68; ++i) CHECK_RC(FTB_Add_tag(a, (FTB_tag_t)i, NULL, 0), FTB_SUCCESS);
    CHECK_RC(FTB_Add_tag(a, 200, NULL, 0), FTB_ERR_TAG_NO_SPACE);

    /* A client's tags go when it disconnects. */
    CHECK_RC(FTB_Disconnect(a), FTB_SUCCESS);
    CHECK_RC(FTB_Add_tag(b, 1, "now mine", 8), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(b), FTB_SUCCESS);
    /* Uninitialised library. */
    CHECK_RC(FTB_Add_tag(b, 1, "x", 1), FTB_ERR_GENERAL);
}

int main(void) {
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(tags_travel_with_events);
    RUN(tag_ownership_and_space);
    ftb05_test_agent_stop();
    return ftb05_test_result();
}
