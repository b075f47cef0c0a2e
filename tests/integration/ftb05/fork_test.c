/*
 * Two FTB 0.5 clients in different processes (fork) exchange events through
 * one real agent: the child publishes a request, the parent answers with a
 * response event (type 2) carrying the request's handle, and the child matches
 * it against the handle FTB_Publish returned, as in CIFTS FTB's
 * ftb_eventhandle_example.c. Pipes order the steps; every wait has a deadline.
 * Also built against libftb.so (shared_fork_test).
 */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

#define WAIT_MS 20000  /* what a loaded 2-core machine may need; an arrival returns at once */

static void declare(FTB_client_handle_t h, const char *name) {
    FTB_event_info_t info;
    memset(&info, 0, sizeof info);
    strcpy(info.event_name, name);
    strcpy(info.severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, &info, 1), FTB_SUCCESS);
}

/* Reads one byte from fd within timeout_ms; 1 on success. */
static int wait_byte(int fd, int timeout_ms) {
    struct pollfd p;
    char c;
    p.fd = fd;
    p.events = POLLIN;
    if (poll(&p, 1, timeout_ms) != 1) return 0;
    return read(fd, &c, 1) == 1;
}

static volatile int responses_seen;
static FTB_receive_event_t response;

static int on_response(FTB_receive_event_t *event, void *arg) {
    (void)arg;
    response = *event;
    __atomic_store_n(&responses_seen, 1, __ATOMIC_SEQ_CST);
    return 0;
}

/* The child: a NOTIFY client that publishes a request and waits for the answer. */
static int child(int go_fd) {
    FTB_client_handle_t h = ftb05_connect("FTB.FORK.CHILD", "child", "", "FTB_SUBSCRIPTION_NOTIFY", 0);
    FTB_subscribe_handle_t sh;
    FTB_event_properties_t props;
    FTB_event_handle_t sent, echoed;
    if (ftb05_failures) return 1;
    declare(h, "REQUEST");
    if (FTB_Subscribe(&sh, h, "event_space=ftb.fork.parent", on_response, NULL) != FTB_SUCCESS) {
        fprintf(stderr, "child: subscribe failed\n");
        return 1;
    }
    if (!wait_byte(go_fd, WAIT_MS)) {
        fprintf(stderr, "child: parent never said go\n");
        return 1;
    }
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    strcpy(props.event_payload, "from child");
    CHECK_RC(FTB_Publish(h, "REQUEST", &props, &sent), FTB_SUCCESS);
    if (!ftb05_wait_count(&responses_seen, 1, WAIT_MS)) {
        fprintf(stderr, "child: no response arrived\n");
        return 1;
    }
    CHECK(response.event_type == 2);
    CHECK(strcmp(response.event_name, "RESPONSE") == 0);
    CHECK(strcmp(response.event_space, "FTB.FORK.PARENT") == 0);
    CHECK(response.incoming_src.pid == getppid());
    memcpy(&echoed, response.event_payload, sizeof echoed);
    CHECK_RC(FTB_Compare_event_handles(echoed, sent), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
    return ftb05_failures ? 1 : 0;
}

static void two_processes_exchange_events(void) {
    int go[2];
    pid_t pid;
    FTB_client_handle_t h;
    FTB_subscribe_handle_t sh;
    FTB_receive_event_t ev;
    FTB_event_handle_t request, answer;
    FTB_event_properties_t props;
    int status = 0, exited = 0;
    double deadline;

    REQUIRE_RC(pipe(go), 0);
    /* Fork before either side starts library threads. */
    pid = fork();
    REQUIRE_RC(pid >= 0, 1);
    if (pid == 0) {
        close(go[1]);
        _exit(child(go[0]));
    }
    close(go[0]);
    h = ftb05_connect("FTB.FORK.PARENT", "parent", "", "FTB_SUBSCRIPTION_POLLING", 0);
    declare(h, "RESPONSE");
    CHECK_RC(FTB_Subscribe(&sh, h, "event_space=ftb.fork.child, event_name=all", NULL, NULL),
             FTB_SUCCESS);
    CHECK(write(go[1], "g", 1) == 1);

    if (ftb05_poll_event_for(sh, &ev, WAIT_MS) == FTB_SUCCESS) {
        CHECK(strcmp(ev.event_name, "REQUEST") == 0);
        CHECK(strcmp(ev.event_payload, "from child") == 0);
        CHECK(strcmp(ev.client_name, "child") == 0);
        CHECK(ev.incoming_src.pid == pid);
        CHECK_RC(FTB_Get_event_handle(ev, &request), FTB_SUCCESS);
        memset(&props, 0, sizeof props);
        props.event_type = 2;
        memcpy(props.event_payload, &request, sizeof request);
        CHECK_RC(FTB_Publish(h, "RESPONSE", &props, &answer), FTB_SUCCESS);
    } else {
        fprintf(stderr, "parent: the child's request did not arrive\n");
        ++ftb05_failures;
    }

    deadline = ftb05_now_ms() + WAIT_MS;
    while (!exited && ftb05_now_ms() < deadline) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
        } else {
            ftb05_pause_1ms();
        }
    }
    if (!exited) {
        fprintf(stderr, "parent: the child did not finish; killing it\n");
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ++ftb05_failures;
    } else {
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    close(go[1]);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

int main(void) {
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(two_processes_exchange_events);
    ftb05_test_agent_stop();
    return ftb05_test_result();
}
