/*
 * The FTB 0.5 C API against a real ftb-agent, from plain C99: validation order
 * and error codes of every call, polling and callback delivery, the polling
 * queue, unsubscribe, responses with event handles, LOOKUP after the last
 * disconnect, FTB_AGENT_PORT / FTB_CONFIG_FILE, and events from native SDK
 * clients. Expected behaviour: client/ftb05/API_NOTES.md.
 */
#include <stdlib.h>
#include <unistd.h>

#include "tests/integration/ftb05/native_client.h"
#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

#define WAIT_MS 20000  /* what a loaded 2-core machine may need; an arrival returns at once */

static void declare(FTB_client_handle_t handle, const char *name, const char *severity) {
    FTB_event_info_t info;
    memset(&info, 0, sizeof info);
    strcpy(info.event_name, name);
    strcpy(info.severity, severity);
    CHECK_RC(FTB_Declare_publishable_events(handle, NULL, &info, 1), FTB_SUCCESS);
}

static int publish_text(FTB_client_handle_t handle, const char *name, const char *text,
                        FTB_event_handle_t *ehandle) {
    FTB_event_properties_t props;
    memset(&props, 0, sizeof props);
    props.event_type = 1;
    strncpy(props.event_payload, text, sizeof props.event_payload - 1);
    return FTB_Publish(handle, name, &props, ehandle);
}

static void connect_validation(void) {
    FTB_client_t info;
    FTB_client_handle_t h, h2;
    static const char *bad_spaces[] = {"FTB",   "FTB.MPI", "a..b",    ".a.b",  "a.b.",
                                       "a.b.c.d", "a-b.c.d", "a b.c.d", "a.*.c", ""};
    size_t i;

    ftb05_client_info(&info, "FTB.TEST.CONN", "c", "", "FTB_SUBSCRIPTION_POLLING", 0);
    CHECK_RC(FTB_Connect(&info, NULL), FTB_ERR_NULL_POINTER);
    CHECK_RC(FTB_Connect(NULL, &h), FTB_ERR_NULL_POINTER);

    ftb05_client_info(&info, "bad", "c", "", "FTB_SUBSCRIPTION_WHATEVER", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_SUBSCRIPTION_STYLE); /* style before space */
    ftb05_client_info(&info, "FTB.TEST.CONN", "c", "", "", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_SUBSCRIPTION_STYLE);

    for (i = 0; i < sizeof bad_spaces / sizeof bad_spaces[0]; ++i) {
        ftb05_client_info(&info, bad_spaces[i], "c", "", "FTB_SUBSCRIPTION_NONE", 0);
        CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_EVENTSPACE_FORMAT);
    }
    ftb05_client_info(&info, "FTB.TEST.CONN", "c", "", "FTB_SUBSCRIPTION_NONE", 0);
    memset(info.event_space, 'a', sizeof info.event_space); /* unterminated */
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_EVENTSPACE_FORMAT);

    ftb05_client_info(&info, "FTB.TEST.CONN", "", "", "FTB_SUBSCRIPTION_NONE", 0);
    memset(info.client_name, 'n', sizeof info.client_name); /* 16 characters */
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_INVALID_VALUE);
    ftb05_client_info(&info, "FTB.TEST.CONN", "c", "", "FTB_SUBSCRIPTION_NONE", 0);
    memset(info.client_jobid, 'j', sizeof info.client_jobid);
    CHECK_RC(FTB_Connect(&info, &h), FTB_ERR_INVALID_VALUE);

    /* Anonymous, lower-case style, 15-character name and jobid are fine. */
    ftb05_client_info(&info, "x.MPI.Lib", "", "", "ftb_subscription_polling", 0);
    REQUIRE_RC(FTB_Connect(&info, &h), FTB_SUCCESS);
    CHECK(h.valid == 1);
    CHECK(strcmp(h.client_id.region, "x") == 0);
    CHECK(strcmp(h.client_id.comp_cat, "MPI") == 0);
    CHECK(strcmp(h.client_id.comp, "Lib") == 0);
    CHECK(strcmp(h.client_id.client_name, "") == 0);
    CHECK(h.client_id.ext == 0);
    /* Same identity: the region is not part of it, case does not matter. */
    ftb05_client_info(&info, "y.mpi.lib", "", "", "FTB_SUBSCRIPTION_NONE", 0);
    CHECK_RC(FTB_Connect(&info, &h2), FTB_ERR_DUP_CALL);
    ftb05_client_info(&info, "y.mpi.lib", "abcdefghijklmno", "123456789012345",
                      "FTB_SUBSCRIPTION_BOTH", 0);
    REQUIRE_RC(FTB_Connect(&info, &h2), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(h2), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static void declare_validation(void) {
    FTB_client_handle_t h = ftb05_connect("FTB.TEST.DECL", "d", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t bad = h;
    FTB_event_info_t ev[4];
    FTB_event_handle_t eh;
    char name[40];
    int i;

    bad.valid = 0;
    CHECK_RC(FTB_Declare_publishable_events(bad, NULL, NULL, 0), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, NULL, 0), FTB_SUCCESS);
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, NULL, 1), FTB_ERR_NULL_POINTER);
    /* A negative count is refused, not taken for "nothing to declare". */
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, NULL, -1), FTB_ERR_INVALID_PARAMETER);

    memset(ev, 0, sizeof ev);
    strcpy(ev[0].event_name, "GOOD_ONE");
    strcpy(ev[0].severity, "Fatal");
    strcpy(ev[1].event_name, "BAD-NAME");
    strcpy(ev[1].severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, ev, 2), FTB_ERR_INVALID_FIELD);
    CHECK_RC(FTB_Publish(h, "GOOD_ONE", NULL, &eh), FTB_SUCCESS); /* stays declared */
    CHECK(strcmp(eh.severity, "Fatal") == 0);

    memset(ev, 0, sizeof ev);
    memset(ev[0].event_name, 'N', sizeof ev[0].event_name); /* 32, unterminated */
    strcpy(ev[0].severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, ev, 1), FTB_ERR_INVALID_FIELD);
    memset(ev, 0, sizeof ev);
    strcpy(ev[0].event_name, "SEV_ALL");
    strcpy(ev[0].severity, "all");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, ev, 1), FTB_ERR_INVALID_FIELD);

    /* A duplicate is skipped; the entries after it are still declared. */
    memset(ev, 0, sizeof ev);
    strcpy(ev[0].event_name, "good_one");
    strcpy(ev[0].severity, "info");
    strcpy(ev[1].event_name, "AFTER_DUP");
    strcpy(ev[1].severity, "warning");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, ev, 2), FTB_SUCCESS);
    CHECK_RC(FTB_Publish(h, "good_one", NULL, &eh), FTB_SUCCESS);
    CHECK(strcmp(eh.severity, "Fatal") == 0); /* the first declaration wins */
    CHECK_RC(FTB_Publish(h, "AFTER_DUP", NULL, &eh), FTB_SUCCESS);

    /* 100 declared events at most: 2 so far. */
    for (i = 2; i < 100; ++i) {
        sprintf(name, "E%d", i);
        declare(h, name, "info");
    }
    memset(ev, 0, sizeof ev);
    strcpy(ev[0].event_name, "ONE_TOO_MANY");
    strcpy(ev[0].severity, "info");
    CHECK_RC(FTB_Declare_publishable_events(h, NULL, ev, 1), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static void publish_validation(void) {
    FTB_client_handle_t h = ftb05_connect("FTB.TEST.PUBV", "p", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t bad = h;
    FTB_event_properties_t props;
    FTB_event_handle_t eh;
    char long_name[40];

    declare(h, "DECLARED", "error");
    bad.valid = 0;
    CHECK_RC(FTB_Publish(bad, "DECLARED", NULL, &eh), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Publish(h, "DECLARED", NULL, NULL), FTB_ERR_NULL_POINTER);
    CHECK_RC(FTB_Publish(h, NULL, NULL, &eh), FTB_ERR_NULL_POINTER);
    CHECK_RC(FTB_Publish(h, "", NULL, &eh), FTB_ERR_INVALID_EVENT_NAME);
    memset(long_name, 'A', 32);
    long_name[32] = '\0';
    CHECK_RC(FTB_Publish(h, long_name, NULL, &eh), FTB_ERR_INVALID_EVENT_NAME);
    CHECK_RC(FTB_Publish(h, "UNDECLARED", NULL, &eh), FTB_ERR_INVALID_EVENT_NAME);
    memset(&props, 0, sizeof props);
    props.event_type = 0;
    CHECK_RC(FTB_Publish(h, "DECLARED", &props, &eh), FTB_ERR_INVALID_EVENT_TYPE);
    props.event_type = 3;
    CHECK_RC(FTB_Publish(h, "DECLARED", &props, &eh), FTB_ERR_INVALID_EVENT_TYPE);

    /* seqnum starts at 1 per connection; the name is kept as spelled. */
    CHECK_RC(FTB_Publish(h, "declared", NULL, &eh), FTB_SUCCESS);
    CHECK(eh.seqnum == 1);
    CHECK(strcmp(eh.event_name, "declared") == 0);
    CHECK(strcmp(eh.severity, "error") == 0);
    CHECK(strcmp(eh.client_id.comp, "PUBV") == 0);
    CHECK(strcmp(eh.client_id.client_name, "p") == 0);
    CHECK(eh.location_id.pid == getpid());
    CHECK(eh.location_id.hostname[0] != '\0');
    CHECK(eh.location_id.pid_starttime[0] != '\0');
    props.event_type = 2;
    CHECK_RC(FTB_Publish(h, "DECLARED", &props, &eh), FTB_SUCCESS);
    CHECK(eh.seqnum == 2);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static int on_second(FTB_receive_event_t *event, void *arg);

static void subscribe_validation(void) {
    FTB_client_handle_t poller = ftb05_connect("FTB.TEST.SUBV", "poller", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_client_handle_t notifier = ftb05_connect("FTB.TEST.SUBV2", "notifier", "job7", "FTB_SUBSCRIPTION_NOTIFY", 0);
    FTB_client_handle_t none = ftb05_connect("FTB.TEST.SUBV3", "none", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t bad = poller;
    FTB_subscribe_handle_t sh;
    int (*cb)(FTB_receive_event_t *, void *) = NULL;
    char text[200];
    size_t i;
    static const struct {
        const char *text;
        int rc;
    } cases[] = {
        {"severity", FTB_ERR_SUBSCRIPTION_STR},
        {"severity=fatal,", FTB_ERR_SUBSCRIPTION_STR},
        {"severity=fatal,,jobid=1", FTB_ERR_SUBSCRIPTION_STR},
        {"=fatal", FTB_ERR_SUBSCRIPTION_STR},
        {"severity=", FTB_ERR_SUBSCRIPTION_STR},
        {"severity= \t", FTB_ERR_SUBSCRIPTION_STR},
        {"sev erity=fatal", FTB_ERR_FILTER_ATTR},
        {"severity=fa tal", FTB_ERR_FILTER_VALUE},
        {"colour=red", FTB_ERR_FILTER_ATTR},
        {"severity=fatal,SEVERITY=info", FTB_ERR_SUBSCRIPTION_STR},
        {"severity=fatal,severity=loud", FTB_ERR_SUBSCRIPTION_STR}, /* duplicate checked first */
        {"severity=loud", FTB_ERR_FILTER_VALUE},
        {"colour=red,severity=loud", FTB_ERR_FILTER_ATTR},        /* the first pair decides */
        {"event_space=ftb.mpi", FTB_ERR_EVENTSPACE_FORMAT},
        {"event_space=ftb.mpi.a-b", FTB_ERR_EVENTSPACE_FORMAT},
        {"jobid=1234567890123456", FTB_ERR_FILTER_VALUE},
        {"client_name=1234567890123456", FTB_ERR_FILTER_VALUE},
        {"event_name=ABCDEFGHIJABCDEFGHIJABCDEFGHIJAB", FTB_ERR_FILTER_VALUE},
        {"a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11", FTB_ERR_SUBSCRIPTION_STR},
        {"", FTB_SUCCESS},
        {" Severity = FATAL , event_space = ftb.all.watchdog ", FTB_SUCCESS},
        {"severity=fatal=whatever", FTB_SUCCESS},
        {"event_name=any-thing*", FTB_SUCCESS}, /* event_name content is not checked */
    };

    bad.valid = 0;
    CHECK_RC(FTB_Subscribe(NULL, poller, "", NULL, NULL), FTB_ERR_NULL_POINTER);
    CHECK_RC(FTB_Subscribe(&sh, bad, "", NULL, NULL), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Subscribe(&sh, poller, NULL, NULL, NULL), FTB_ERR_SUBSCRIPTION_STR);
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int rc = FTB_Subscribe(&sh, poller, cases[i].text, NULL, NULL);
        if (rc != cases[i].rc) {
            fprintf(stderr, "FTB_Subscribe(\"%s\") returned %d, expected %d\n", cases[i].text, rc,
                    cases[i].rc);
            ++ftb05_failures;
        }
    }
    /* Subscription style: a callback needs NOTIFY, polling needs POLLING. */
    CHECK_RC(FTB_Subscribe(&sh, notifier, "", NULL, NULL), FTB_ERR_NOT_SUPPORTED);
    CHECK_RC(FTB_Subscribe(&sh, none, "", NULL, NULL), FTB_ERR_NOT_SUPPORTED);
    /* A callback on a polling-only client. */
    cb = on_second;
    CHECK_RC(FTB_Subscribe(&sh, poller, "", cb, NULL), FTB_ERR_NOT_SUPPORTED);
    /* Parse errors come after the style check. */
    CHECK_RC(FTB_Subscribe(&sh, none, "colour=red", NULL, NULL), FTB_ERR_NOT_SUPPORTED);

    /* The handle holds the parsed mask, unset fields "all". */
    strcpy(text, "event_space=FTB.all.WatchDog, severity=Fatal, jobid=J1");
    REQUIRE_RC(FTB_Subscribe(&sh, poller, text, NULL, NULL), FTB_SUCCESS);
    CHECK(sh.valid == 1);
    CHECK(sh.subscription_type == FTB_SUBSCRIPTION_POLLING);
    CHECK(strcmp(sh.client_handle.client_id.comp, "SUBV") == 0);
    CHECK(strcmp(sh.subscription_event.region, "FTB") == 0);
    CHECK(strcmp(sh.subscription_event.comp_cat, "all") == 0);
    CHECK(strcmp(sh.subscription_event.comp, "WatchDog") == 0);
    CHECK(strcmp(sh.subscription_event.severity, "Fatal") == 0);
    CHECK(strcmp(sh.subscription_event.client_jobid, "J1") == 0);
    CHECK(strcmp(sh.subscription_event.event_name, "all") == 0);
    CHECK(strcmp(sh.subscription_event.hostname, "all") == 0);
    CHECK(strcmp(sh.subscription_event.client_name, "all") == 0);

    CHECK_RC(FTB_Disconnect(poller), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(notifier), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(none), FTB_SUCCESS);
}

static void polling_delivery(void) {
    FTB_client_handle_t pub = ftb05_connect("FTB.Test.Pub", "pubber", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t sub = ftb05_connect("FTB.TEST.POLL", "poller", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t by_space, by_name, by_job, unrelated, bad;
    FTB_event_properties_t props;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;
    int i;

    declare(pub, "PROC_DEAD", "fatal");
    REQUIRE_RC(FTB_Subscribe(&by_space, sub, "event_space=ftb.test.pub", NULL, NULL), FTB_SUCCESS);
    /* event_name set: severity, category and component are ignored. */
    REQUIRE_RC(FTB_Subscribe(&by_name, sub, "event_name=proc_dead, severity=info, event_space=FTB.x.y",
                             NULL, NULL),
               FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&by_job, sub, "jobid=JOB7", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&unrelated, sub, "event_space=ftb.other.thing", NULL, NULL), FTB_SUCCESS);

    memset(&props, 0, sizeof props);
    props.event_type = 1;
    for (i = 0; i < FTB_MAX_PAYLOAD_DATA; ++i) props.event_payload[i] = (char)(i % 251 + 1);
    REQUIRE_RC(FTB_Publish(pub, "Proc_Dead", &props, &eh), FTB_SUCCESS);

    CHECK_RC(ftb05_poll_event_for(by_space, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(strcmp(ev.event_space, "FTB.Test.Pub") == 0);
    CHECK(strcmp(ev.event_name, "Proc_Dead") == 0);
    CHECK(strcmp(ev.severity, "fatal") == 0);
    CHECK(strcmp(ev.client_name, "pubber") == 0);
    CHECK(strcmp(ev.client_jobid, "job7") == 0);
    CHECK(ev.client_extension == 0);
    CHECK(ev.seqnum == 1);
    CHECK(ev.incoming_src.pid == getpid());
    CHECK(strcmp(ev.incoming_src.hostname, eh.location_id.hostname) == 0);
    CHECK(strcmp(ev.incoming_src.pid_starttime, eh.location_id.pid_starttime) == 0);
    CHECK(ev.event_type == 1);
    CHECK(memcmp(ev.event_payload, props.event_payload, FTB_MAX_PAYLOAD_DATA) == 0);
    /* Delivered once per client: nothing left for the other matching masks. */
    CHECK_RC(FTB_Poll_event(by_name, &ev), FTB_GOT_NO_EVENT);
    CHECK_RC(FTB_Poll_event(by_job, &ev), FTB_GOT_NO_EVENT);

    /* Another event; each poll takes the oldest event matching its own mask. */
    REQUIRE_RC(publish_text(pub, "PROC_DEAD", "second", &eh), FTB_SUCCESS);
    CHECK_RC(ftb05_poll_event_for(by_name, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(strcmp(ev.event_payload, "second") == 0);
    CHECK(ev.seqnum == 2);
    CHECK_RC(FTB_Poll_event(unrelated, &ev), FTB_GOT_NO_EVENT);
    REQUIRE_RC(publish_text(pub, "PROC_DEAD", "third", &eh), FTB_SUCCESS);
    CHECK_RC(ftb05_poll_event_for(by_job, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(strcmp(ev.event_payload, "third") == 0);

    CHECK_RC(FTB_Poll_event(by_space, NULL), FTB_ERR_NULL_POINTER);
    bad = by_space;
    bad.valid = 0;
    CHECK_RC(FTB_Poll_event(bad, &ev), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(sub), FTB_SUCCESS);
}

static void polling_queue_overflow(void) {
    FTB_client_handle_t pub = ftb05_connect("FTB.TEST.FLOOD", "pub", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t sub = ftb05_connect("FTB.TEST.SINK", "sink", "job7", "FTB_SUBSCRIPTION_POLLING", 3);
    FTB_subscribe_handle_t data, marker;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;
    char text[16];
    int i;

    declare(pub, "DATA", "info");
    declare(pub, "MARKER", "info");
    REQUIRE_RC(FTB_Subscribe(&data, sub, "event_name=DATA", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&marker, sub, "event_name=MARKER", NULL, NULL), FTB_SUCCESS);
    for (i = 0; i < 5; ++i) {
        sprintf(text, "%d", i);
        REQUIRE_RC(publish_text(pub, "DATA", text, &eh), FTB_SUCCESS);
    }
    REQUIRE_RC(publish_text(pub, "MARKER", "m", &eh), FTB_SUCCESS);
    /* Once the marker is there, so are the events before it: the queue of 3
       kept DATA 3, DATA 4 and the marker, dropping the oldest. */
    CHECK_RC(ftb05_poll_event_for(marker, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK_RC(FTB_Poll_event(data, &ev), FTB_SUCCESS);
    CHECK(strcmp(ev.event_payload, "3") == 0);
    CHECK_RC(FTB_Poll_event(data, &ev), FTB_SUCCESS);
    CHECK(strcmp(ev.event_payload, "4") == 0);
    CHECK_RC(FTB_Poll_event(data, &ev), FTB_GOT_NO_EVENT);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(sub), FTB_SUCCESS);
}

static void unsubscribe_behaviour(void) {
    FTB_client_handle_t c = ftb05_connect("FTB.TEST.UNSUB", "u", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t sh, copy, marker;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;

    declare(c, "EV", "info");
    declare(c, "MARK", "info");
    CHECK_RC(FTB_Unsubscribe(NULL), FTB_ERR_INVALID_HANDLE);
    REQUIRE_RC(FTB_Subscribe(&sh, c, "event_name=EV", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&marker, c, "event_name=MARK", NULL, NULL), FTB_SUCCESS);
    copy = sh;
    /* A client receives its own events. */
    REQUIRE_RC(publish_text(c, "EV", "queued", &eh), FTB_SUCCESS);
    REQUIRE_RC(publish_text(c, "MARK", "1", &eh), FTB_SUCCESS);
    CHECK_RC(ftb05_poll_event_for(marker, &ev, WAIT_MS), FTB_SUCCESS);

    CHECK_RC(FTB_Unsubscribe(&sh), FTB_SUCCESS);
    CHECK(sh.valid == 0);
    CHECK_RC(FTB_Unsubscribe(&sh), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Poll_event(sh, &ev), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Unsubscribe(&copy), FTB_SUCCESS); /* a copy made earlier: again */
    copy.valid = 1;
    /* Events queued before the unsubscribe stay; new ones no longer come. */
    CHECK_RC(FTB_Poll_event(copy, &ev), FTB_SUCCESS);
    CHECK(strcmp(ev.event_payload, "queued") == 0);
    REQUIRE_RC(publish_text(c, "EV", "late", &eh), FTB_SUCCESS);
    REQUIRE_RC(publish_text(c, "MARK", "2", &eh), FTB_SUCCESS);
    CHECK_RC(ftb05_poll_event_for(marker, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK_RC(FTB_Poll_event(copy, &ev), FTB_GOT_NO_EVENT);
    CHECK_RC(FTB_Disconnect(c), FTB_SUCCESS);
}

/* ---- callbacks */

static volatile int cb_first_count, cb_second_count, cb_self_unsub_count;
static FTB_receive_event_t cb_last_event;
static FTB_subscribe_handle_t cb_self_unsub_handle;
static FTB_client_handle_t cb_disconnect_target;
static volatile int cb_disconnect_rc = 1, cb_disconnect_done;

static int on_first(FTB_receive_event_t *event, void *arg) {
    CHECK(arg == (void *)&cb_first_count);
    cb_last_event = *event;
    __atomic_add_fetch(&cb_first_count, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static int on_second(FTB_receive_event_t *event, void *arg) {
    (void)event;
    (void)arg;
    __atomic_add_fetch(&cb_second_count, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static int on_self_unsubscribe(FTB_receive_event_t *event, void *arg) {
    (void)event;
    (void)arg;
    CHECK_RC(FTB_Unsubscribe(&cb_self_unsub_handle), FTB_SUCCESS);
    __atomic_add_fetch(&cb_self_unsub_count, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static int on_disconnect_self(FTB_receive_event_t *event, void *arg) {
    (void)event;
    (void)arg;
    cb_disconnect_rc = FTB_Disconnect(cb_disconnect_target);
    __atomic_store_n(&cb_disconnect_done, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void callback_delivery(void) {
    FTB_client_handle_t pub = ftb05_connect("FTB.TEST.CBPUB", "pub", "job7", "FTB_SUBSCRIPTION_NONE", 0);
    FTB_client_handle_t both = ftb05_connect("FTB.TEST.CBSUB", "both", "job7", "FTB_SUBSCRIPTION_BOTH", 0);
    FTB_subscribe_handle_t first, second, polled;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;

    declare(pub, "TICK", "warning");
    declare(pub, "TOCK", "info");
    declare(pub, "GONE", "info");
    REQUIRE_RC(FTB_Subscribe(&first, both, "event_name=TICK", on_first, (void *)&cb_first_count),
               FTB_SUCCESS);
    CHECK(first.subscription_type == FTB_SUBSCRIPTION_NOTIFY);
    /* Also matches TICK, but only the first matching callback runs. */
    REQUIRE_RC(FTB_Subscribe(&second, both, "severity=warning", on_second, NULL), FTB_SUCCESS);
    /* No callback matches TOCK: a BOTH client queues it for polling. */
    REQUIRE_RC(FTB_Subscribe(&polled, both, "event_space=ftb.test.cbpub", NULL, NULL), FTB_SUCCESS);

    REQUIRE_RC(publish_text(pub, "TICK", "t1", &eh), FTB_SUCCESS);
    REQUIRE_RC(publish_text(pub, "TICK", "t2", &eh), FTB_SUCCESS);
    REQUIRE_RC(publish_text(pub, "TOCK", "tock", &eh), FTB_SUCCESS);
    CHECK(ftb05_wait_count(&cb_first_count, 2, WAIT_MS));
    CHECK(strcmp(cb_last_event.event_name, "TICK") == 0);
    CHECK(strcmp(cb_last_event.event_payload, "t2") == 0);
    CHECK(strcmp(cb_last_event.event_space, "FTB.TEST.CBPUB") == 0);
    CHECK_RC(ftb05_poll_event_for(polled, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(strcmp(ev.event_name, "TOCK") == 0);
    /* TICK went to the callback, not the queue. */
    CHECK_RC(FTB_Poll_event(polled, &ev), FTB_GOT_NO_EVENT);
    CHECK(cb_second_count == 0);
    /* A callback handle may be polled on a BOTH client. */
    CHECK_RC(FTB_Poll_event(first, &ev), FTB_GOT_NO_EVENT);

    /* Unsubscribing from inside the callback. */
    REQUIRE_RC(FTB_Subscribe(&cb_self_unsub_handle, both, "event_name=GONE", on_self_unsubscribe, NULL),
               FTB_SUCCESS);
    REQUIRE_RC(publish_text(pub, "GONE", "1", &eh), FTB_SUCCESS);
    CHECK(ftb05_wait_count(&cb_self_unsub_count, 1, WAIT_MS));
    REQUIRE_RC(publish_text(pub, "GONE", "2", &eh), FTB_SUCCESS);
    REQUIRE_RC(publish_text(pub, "TICK", "t3", &eh), FTB_SUCCESS);
    CHECK(ftb05_wait_count(&cb_first_count, 3, WAIT_MS));
    CHECK(cb_self_unsub_count == 1);
    /* GONE 2 matched only the polling mask of the client: it was queued. */
    CHECK_RC(FTB_Poll_event(polled, &ev), FTB_SUCCESS);
    CHECK(strcmp(ev.event_name, "GONE") == 0);

    /* Disconnecting a client from inside its own callback. */
    {
        FTB_client_handle_t notify =
            ftb05_connect("FTB.TEST.CBSELF", "self", "job7", "FTB_SUBSCRIPTION_NOTIFY", 0);
        FTB_subscribe_handle_t sh;
        cb_disconnect_target = notify;
        REQUIRE_RC(FTB_Subscribe(&sh, notify, "event_name=TOCK", on_disconnect_self, NULL),
                   FTB_SUCCESS);
        CHECK_RC(FTB_Poll_event(sh, &ev), FTB_ERR_NOT_SUPPORTED); /* no polling bit */
        REQUIRE_RC(publish_text(pub, "TOCK", "bye", &eh), FTB_SUCCESS);
        CHECK(ftb05_wait_count(&cb_disconnect_done, 1, WAIT_MS));
        CHECK(cb_disconnect_rc == FTB_SUCCESS);
        CHECK_RC(FTB_Subscribe(&sh, notify, "", on_second, NULL), FTB_ERR_INVALID_HANDLE);
    }
    CHECK_RC(FTB_Disconnect(both), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(pub), FTB_SUCCESS);
}

static void responses_and_handles(void) {
    FTB_client_handle_t requester = ftb05_connect("FTB.TEST.REQ", "req", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_client_handle_t responder = ftb05_connect("FTB.TEST.RESP", "resp", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t requests, responses;
    FTB_event_handle_t sent, received, echoed, other;
    FTB_event_properties_t props;
    FTB_receive_event_t ev, bad_ev;

    CHECK(sizeof(FTB_event_handle_t) <= FTB_MAX_PAYLOAD_DATA);
    declare(requester, "CKPT_REQUEST", "info");
    declare(responder, "CKPT_DONE", "info");
    REQUIRE_RC(FTB_Subscribe(&requests, responder, "event_name=CKPT_REQUEST", NULL, NULL), FTB_SUCCESS);
    REQUIRE_RC(FTB_Subscribe(&responses, requester, "event_space=FTB.TEST.RESP", NULL, NULL),
               FTB_SUCCESS);
    REQUIRE_RC(publish_text(requester, "CKPT_REQUEST", "epoch 7", &sent), FTB_SUCCESS);

    REQUIRE_RC(ftb05_poll_event_for(requests, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK_RC(FTB_Get_event_handle(ev, NULL), FTB_ERR_NULL_POINTER);
    REQUIRE_RC(FTB_Get_event_handle(ev, &received), FTB_SUCCESS);
    CHECK_RC(FTB_Compare_event_handles(received, sent), FTB_SUCCESS);
    memset(&props, 0, sizeof props);
    props.event_type = 2;
    memcpy(props.event_payload, &received, sizeof received);
    REQUIRE_RC(FTB_Publish(responder, "CKPT_DONE", &props, &other), FTB_SUCCESS);

    REQUIRE_RC(ftb05_poll_event_for(responses, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(ev.event_type == 2);
    memcpy(&echoed, ev.event_payload, sizeof echoed);
    CHECK_RC(FTB_Compare_event_handles(echoed, sent), FTB_SUCCESS);
    CHECK_RC(FTB_Compare_event_handles(other, sent), FTB_FAILURE);
    /* Each field counts; names compare case-insensitively. */
    echoed = sent;
    echoed.seqnum++;
    CHECK_RC(FTB_Compare_event_handles(echoed, sent), FTB_FAILURE);
    echoed = sent;
    echoed.location_id.pid++;
    CHECK_RC(FTB_Compare_event_handles(echoed, sent), FTB_FAILURE);
    echoed = sent;
    strcpy(echoed.event_name, "ckpt_request");
    strcpy(echoed.client_id.comp, "req");
    CHECK_RC(FTB_Compare_event_handles(echoed, sent), FTB_SUCCESS);

    bad_ev = ev;
    strcpy(bad_ev.event_space, "FTB.NODOTS");
    CHECK_RC(FTB_Get_event_handle(bad_ev, &received), FTB_ERR_EVENTSPACE_FORMAT);
    CHECK_RC(FTB_Disconnect(requester), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(responder), FTB_SUCCESS);
}

static void lookup_after_disconnect(void) {
    FTB_client_handle_t a = ftb05_connect("FTB.TEST.LOOKA", "a", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_client_handle_t b = ftb05_connect("FTB.TEST.LOOKB", "b", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_client_handle_t stranger = a, bad = a;
    FTB_subscribe_handle_t sh;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;

    declare(a, "EV", "info");
    REQUIRE_RC(FTB_Subscribe(&sh, a, "", NULL, NULL), FTB_SUCCESS);
    strcpy(stranger.client_id.comp, "NOBODY");
    bad.valid = 0;
    CHECK_RC(FTB_Disconnect(bad), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Disconnect(stranger), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Publish(stranger, "EV", NULL, &eh), FTB_ERR_INVALID_HANDLE);

    CHECK_RC(FTB_Disconnect(a), FTB_SUCCESS);
    /* b is still connected: a's handles are unknown. */
    CHECK_RC(FTB_Publish(a, "EV", NULL, &eh), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Poll_event(sh, &ev), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Disconnect(a), FTB_ERR_INVALID_HANDLE);
    CHECK_RC(FTB_Disconnect(b), FTB_SUCCESS);
    /* The last client is gone: the library is uninitialised. */
    CHECK(sh.valid == 1);
    CHECK_RC(FTB_Poll_event(sh, &ev), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Unsubscribe(&sh), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Publish(a, "EV", NULL, &eh), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Subscribe(&sh, a, "", NULL, NULL), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Declare_publishable_events(a, NULL, NULL, 0), FTB_ERR_GENERAL);
    CHECK_RC(FTB_Disconnect(b), FTB_ERR_GENERAL);
    /* And starts afresh. */
    a = ftb05_connect("FTB.TEST.LOOKA", "a", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    CHECK_RC(FTB_Disconnect(a), FTB_SUCCESS);
}

/* Connects through the TCP port only, publishes to itself and polls it back. */
static void self_round_trip(const char *space) {
    FTB_client_handle_t c = ftb05_connect(space, "tcp", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t sh;
    FTB_event_handle_t eh;
    FTB_receive_event_t ev;
    if (c.valid != 1) return;
    declare(c, "PING", "info");
    CHECK_RC(FTB_Subscribe(&sh, c, "event_name=ping", NULL, NULL), FTB_SUCCESS);
    CHECK_RC(publish_text(c, "PING", "pong", &eh), FTB_SUCCESS);
    CHECK_RC(ftb05_poll_event_for(sh, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK_RC(FTB_Disconnect(c), FTB_SUCCESS);
}

static void agent_port_and_config_file(void) {
    char port[16], path[64], line[128];
    char *endpoint = strdup(getenv("FTB_AGENT_ENDPOINT"));
    FILE *f;
    int fd;

    sprintf(port, "%d", ftb05_test_agent_tcp_port());
    unsetenv("FTB_AGENT_ENDPOINT");
    setenv("FTB_AGENT_PORT", port, 1);
    self_round_trip("FTB.TEST.PORT");
    unsetenv("FTB_AGENT_PORT");

    strcpy(path, "/tmp/ftb05-config-XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        f = fdopen(fd, "w");
        sprintf(line, "# FTB settings\nFTB_BSTRAP_PORT=14455\nFTB_AGENT_PORT = %s\n", port);
        fputs(line, f);
        fclose(f);
        setenv("FTB_CONFIG_FILE", path, 1);
        self_round_trip("FTB.TEST.CONFIG");
        unsetenv("FTB_CONFIG_FILE");
        unlink(path);
    }
    setenv("FTB_AGENT_ENDPOINT", endpoint, 1);
    free(endpoint);
}

static void native_publishers(void) {
    FTB_client_handle_t c = ftb05_connect("FTB.TEST.NATIVE", "n", "job7", "FTB_SUBSCRIPTION_POLLING", 0);
    FTB_subscribe_handle_t sh;
    FTB_receive_event_t ev;
    char big[500];
    int i;

    for (i = 0; i < 500; ++i) big[i] = (char)('a' + i % 26);
    REQUIRE_RC(FTB_Subscribe(&sh, c, "event_space=ftb.native.all, severity=fatal", NULL, NULL),
               FTB_SUCCESS);
    REQUIRE_RC(ftb05_test_native_publish("FTB.NATIVE.DAEMON", "DISK_GONE", "fatal", big, 500), 0);
    REQUIRE_RC(ftb05_poll_event_for(sh, &ev, WAIT_MS), FTB_SUCCESS);
    CHECK(strcmp(ev.event_space, "FTB.NATIVE.DAEMON") == 0);
    CHECK(strcmp(ev.event_name, "DISK_GONE") == 0);
    CHECK(strcmp(ev.severity, "fatal") == 0);
    CHECK(strcmp(ev.client_name, "native") == 0);
    CHECK(ev.seqnum == 1);
    CHECK(ev.event_type == 1);
    /* Longer than an FTB 0.5 payload: cut to 368 bytes. */
    CHECK(memcmp(ev.event_payload, big, FTB_MAX_PAYLOAD_DATA) == 0);
    CHECK_RC(FTB_Disconnect(c), FTB_SUCCESS);
}

int main(void) {
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(connect_validation);
    RUN(declare_validation);
    RUN(publish_validation);
    RUN(subscribe_validation);
    RUN(polling_delivery);
    RUN(polling_queue_overflow);
    RUN(unsubscribe_behaviour);
    RUN(callback_delivery);
    RUN(responses_and_handles);
    RUN(lookup_after_disconnect);
    RUN(agent_port_and_config_file);
    RUN(native_publishers);
    ftb05_test_agent_stop();
    return ftb05_test_result();
}
