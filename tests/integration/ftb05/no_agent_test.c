/*
 * The FTB 0.5 C API with no agent and no connected client: FTB_Connect returns
 * FTB_ERR_GENERAL instead of exiting the program (0.6.2 called exit(-1)), local
 * validation still comes first, every handle-taking call reports the
 * uninitialised library (FTB_ERR_GENERAL), and the calls that need no
 * connection work.
 */
#include <stdlib.h>
#include <unistd.h>

#include "tests/integration/ftb05/test_harness.h"

static FTB_client_handle_t made_up_handle(void) {
    FTB_client_handle_t h;
    memset(&h, 0, sizeof h);
    h.valid = 1;
    strcpy(h.client_id.region, "FTB");
    strcpy(h.client_id.comp_cat, "TEST");
    strcpy(h.client_id.comp, "NOAGENT");
    return h;
}

static void connect_without_agent(void) {
    FTB_client_t info;
    FTB_client_handle_t h;
    double started = ftb05_now_ms();
    ftb05_client_info(&info, "FTB.TEST.NOAGENT", "c", "", "FTB_SUBSCRIPTION_BOTH", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_GENERAL);
    CHECK(ftb05_now_ms() - started < 5000); /* FTB_CONNECT_TIMEOUT_MS=300 */
    /* Local checks need no agent. */
    ftb05_client_info(&info, "FTB.TEST", "c", "", "FTB_SUBSCRIPTION_BOTH", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_EVENTSPACE_FORMAT);
    ftb05_client_info(&info, "FTB.TEST.X", "c", "", "BOTH", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_SUBSCRIPTION_STYLE);
    /* Nothing was left behind: the same identity fails the same way again. */
    ftb05_client_info(&info, "FTB.TEST.NOAGENT", "c", "", "FTB_SUBSCRIPTION_BOTH", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_GENERAL);
}

static void uninitialised_library(void) {
    FTB_client_handle_t h = made_up_handle();
    FTB_subscribe_handle_t sh;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;
    FTB_event_info_t info;

    memset(&info, 0, sizeof info);
    strcpy(info.event_name, "E");
    strcpy(info.severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, &info, 1), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Publish(h, "E", NULL, &eh), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Subscribe(&sh, h, "", NULL, NULL), FTB_ERR_GENERAL);
    memset(&sh, 0, sizeof sh);
    sh.client_handle = h;
    sh.valid = 1;
    CHECK_RC(FTB_Poll_event(sh, &ev), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Unsubscribe(&sh), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Disconnect(h), FTB_ERR_GENERAL);
    /* Handle checks come before LOOKUP. */
    h.valid = 0;
    CHECK_RC(FTB_Publish(h, "E", NULL, &eh), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Disconnect(h), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Subscribe(&sh, h, "", NULL, NULL), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, &info, 1), FTB_ERR_INVALID_HANDLE);
    sh.valid = 0;
    CHECK_RC(FTB_Poll_event(sh, NULL), FTB_ERR_NULL_POINTER);
}

static void handles_need_no_connection(void) {
    FTB_receive_event_t ev;
    FTB_event_handle_t a, b;
    memset(&ev, 0, sizeof ev);
    strcpy(ev.event_space, "FTB.Examples.WatchDog");
    strcpy(ev.event_name, "WATCH_DOG_EVENT");
    strcpy(ev.severity, "info");
    strcpy(ev.client_name, "wd");
    ev.seqnum = 42;
    strcpy(ev.incoming_src.hostname, "node1");
    strcpy(ev.incoming_src.pid_starttime, "Mon_Jan_01_001_00:00:00");
    ev.incoming_src.pid = 1234;
    REQUIRE_RC(FTB_Get_event_handle(ev, &a), FTB_SUCCESS);
    CHECK(strcmp(a.client_id.region, "FTB") == 0);
    CHECK(strcmp(a.client_id.comp_cat, "Examples") == 0);
    CHECK(strcmp(a.client_id.comp, "WatchDog") == 0);
    CHECK(strcmp(a.client_id.client_name, "wd") == 0);
    CHECK(a.seqnum == 42);
    CHECK(a.location_id.pid == 1234);
    CHECK(strcmp(a.location_id.hostname, "node1") == 0);
    b = a;
    CHECK_RC(FTB_Compare_event_handles(a, b), FTB_SUCCESS);
    strcpy(b.location_id.hostname, "NODE1");
    strcpy(b.severity, "INFO");
    CHECK_RC(FTB_Compare_event_handles(a, b), FTB_SUCCESS);
    strcpy(b.location_id.pid_starttime, "Tue_Jan_02_002_00:00:00");
    CHECK_RC(FTB_Compare_event_handles(a, b), FTB_FAILURE);
    b = a;
    b.client_id.ext = 1;
    CHECK_RC(FTB_Compare_event_handles(a, b), FTB_FAILURE);

    strcpy(ev.event_space, "FTB");
    CHECK_RC(FTB_Get_event_handle(ev, &a), FTB_ERR_EVENTSPACE_FORMAT);
    strcpy(ev.event_space, "FTB.MPI");
    CHECK_RC(FTB_Get_event_handle(ev, &a), FTB_ERR_EVENTSPACE_FORMAT);
    strcpy(ev.event_space, "FTB.MPI.X.Y");
    CHECK_RC(FTB_Get_event_handle(ev, &a), FTB_ERR_EVENTSPACE_FORMAT);
    CHECK_RC(FTB_Get_event_handle(ev, NULL), FTB_ERR_NULL_POINTER);
}

int main(void) {
    char dir[] = "/tmp/ftb05-noagent-XXXXXX";
    char endpoint[128];
    if (mkdtemp(dir) == NULL) return 1;
    snprintf(endpoint, sizeof endpoint, "ipc://%s/nobody.sock", dir);
    setenv("FTB_AGENT_ENDPOINT", endpoint, 1);
    setenv("FTB_CONNECT_TIMEOUT_MS", "300", 1);
    RUN(connect_without_agent);
    RUN(uninitialised_library);
    RUN(handles_need_no_connection);
    rmdir(dir);
    return ftb05_test_result();
}
