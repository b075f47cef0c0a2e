/*
 * The FTB 0.5 extension FTBX_Connect_with_last_will (ftbx_last_will.h): a
 * child process connects with a will and is killed (SIGKILL) without
 * FTB_Disconnect; a plain 0.5 subscriber in the parent receives the will as an
 * ordinary event of the child. Bad wills are refused before connecting.
 */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftbx_last_will.h"
#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

#define WAIT_MS 20000  /* what a loaded 2-core machine may need; an arrival returns at once */

/* The child: connects with a will, says ready, waits for the word, dies. */
static int child(int ready_fd, int die_fd) {
    FTB_client_t info;
    FTB_client_handle_t h;
    char c;
    ftb05_client_info(&info, "FTB.WILLC.RANK", "rank7", "", "FTB_SUBSCRIPTION_NONE", 0);
    if (FTBX_Connect_with_last_will(&info, "RANK_DIED", "fatal", "rank 7 died", &h) != FTB_SUCCESS) return 3;
    if (write(ready_fd, "r", 1) != 1) return 4;
    if (read(die_fd, &c, 1) != 1) return 5;
    raise(SIGKILL);
    return 6;
}

static void a_killed_client_has_its_will_published(void) {
    int ready[2], die[2];
    pid_t pid;
    struct pollfd p;
    char c;
    FTB_client_handle_t h;
    FTB_subscribe_handle_t sh;
    FTB_receive_event_t ev;
    int status = 0;

    REQUIRE_RC(pipe(ready), 0);
    REQUIRE_RC(pipe(die), 0);
    pid = fork(); /* before this process starts library threads */
    REQUIRE_RC(pid >= 0, 1);
    if (pid == 0) {
        close(ready[0]);
        close(die[1]);
        _exit(child(ready[1], die[0]));
    }
    close(ready[1]);
    close(die[0]);
    p.fd = ready[0];
    p.events = POLLIN;
    REQUIRE_RC(poll(&p, 1, WAIT_MS) == 1 && read(ready[0], &c, 1) == 1, 1);

    h = ftb05_connect("FTB.WILLC.WATCH", "watcher", "", "FTB_SUBSCRIPTION_POLLING", 0);
    CHECK_RC(FTB_Subscribe(&sh, h, "event_space=ftb.willc.rank, event_name=rank_died", NULL, NULL),
             FTB_SUCCESS);
    CHECK(write(die[1], "d", 1) == 1);
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    if (ftb05_poll_event_for(sh, &ev, WAIT_MS) == FTB_SUCCESS) {
        CHECK(strcmp(ev.event_name, "RANK_DIED") == 0);
        CHECK(strcmp(ev.event_space, "FTB.WILLC.RANK") == 0);
        CHECK(strcmp(ev.severity, "fatal") == 0);
        CHECK(strcmp(ev.client_name, "rank7") == 0);
        CHECK(strcmp(ev.event_payload, "rank 7 died") == 0);
        CHECK(ev.incoming_src.pid == pid);
    } else {
        fprintf(stderr, "the child's last will did not arrive\n");
        ++ftb05_failures;
    }
    close(ready[0]);
    close(die[1]);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static void bad_wills_are_refused_before_connecting(void) {
    FTB_client_t info;
    FTB_client_handle_t h;
    char big[FTB_MAX_PAYLOAD_DATA + 1];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ftb05_client_info(&info, "FTB.WILLC.BAD", "bad", "", "FTB_SUBSCRIPTION_NONE", 0);
    CHECK_RC(FTBX_Connect_with_last_will(&info, "RANK_DIED", "dreadful", "", &h), FTB_ERR_INVALID_VALUE);
    CHECK_RC(FTBX_Connect_with_last_will(&info, "rank died!", "fatal", "", &h), FTB_ERR_INVALID_EVENT_NAME);
    CHECK_RC(FTBX_Connect_with_last_will(&info, "RANK_DIED", "fatal", big, &h), FTB_ERR_INVALID_VALUE);
    CHECK_RC(FTBX_Connect_with_last_will(&info, NULL, "fatal", "", &h), FTB_ERR_NULL_POINTER);
}

int main(void) {
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(a_killed_client_has_its_will_published);
    RUN(bad_wills_are_refused_before_connecting);
    ftb05_test_agent_stop();
    return ftb05_test_result();
}
