/*
 * A program written the way CIFTS FTB 0.6.2's examples are: it includes only
 * <libftb.h> and is compiled and linked outside Bazel against an installed ftb
 * (pkg-config ftb). It publishes an event to itself through the agent named by
 * FTB_AGENT_ENDPOINT, polls it back and prints "received <payload>".
 * Exit status: 0 on success, 1 + the step that failed otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <libftb.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(void) {
    FTB_client_t info;
    FTB_client_handle_t handle;
    FTB_event_info_t event = {"CLASSIC_EVENT", "info"};
    FTB_subscribe_handle_t sub;
    FTB_event_properties_t props;
    FTB_event_handle_t published;
    FTB_receive_event_t got;
    int rc = FTB_GOT_NO_EVENT;
    int tries;

    memset(&info, 0, sizeof info);
    strcpy(info.event_space, "FTB.TEST.CLASSIC");
    strcpy(info.client_name, "classic");
    strcpy(info.client_subscription_style, "FTB_SUBSCRIPTION_POLLING");
    if (FTB_Connect(&info, &handle) != FTB_SUCCESS) return 2;
    if (FTB_Declare_publishable_events(handle, NULL, &event, 1) != FTB_SUCCESS) return 3;
    if (FTB_Subscribe(&sub, handle, "event_space=ftb.test.classic", NULL, NULL) != FTB_SUCCESS) return 4;
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    strcpy(props.event_payload, "hello from 0.6.2 code");
    if (FTB_Publish(handle, "CLASSIC_EVENT", &props, &published) != FTB_SUCCESS) return 5;
    /* Poll for up to 10 s. */
    for (tries = 0; tries < 10000 && rc == FTB_GOT_NO_EVENT; ++tries) {
        struct timespec ms = {0, 1000000};
        rc = FTB_Poll_event(sub, &got);
        if (rc == FTB_GOT_NO_EVENT) nanosleep(&ms, NULL);
    }
    if (rc != FTB_SUCCESS) return 6;
    printf("received %s\n", got.event_payload);
    if (FTB_Disconnect(handle) != FTB_SUCCESS) return 7;
    return 0;
}
