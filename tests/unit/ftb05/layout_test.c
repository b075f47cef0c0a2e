/*
 * Pins the binary layout and the constants of the FTB 0.5 C API headers
 * (client/ftb05) to those of CIFTS FTB 0.6.2 on x86_64, so that structs copied
 * between our library and programs or payloads built for CIFTS FTB agree byte
 * for byte. The expected numbers were worked out from the 0.6.2 definitions and
 * confirmed by compiling the original headers with gcc 12 on x86_64.
 *
 * Built twice: as is, and with -DFTB_TAG (the tag area grows three structs).
 * Plain C99 on purpose: it checks the headers the way a C program sees them.
 * Prints nothing and returns 0 on success; names every mismatch on stderr and
 * returns 1 otherwise.
 */
#include <stddef.h>
#include <stdio.h>

#include "libftb.h"

static int failures = 0;

static void expect(const char *what, size_t actual, size_t expected) {
    if (actual != expected) {
        fprintf(stderr, "layout mismatch: %s is %lu, CIFTS FTB 0.6.2 has %lu\n", what,
                (unsigned long)actual, (unsigned long)expected);
        ++failures;
    }
}

static void expect_value(const char *what, long actual, long expected) {
    if (actual != expected) {
        fprintf(stderr, "constant mismatch: %s is %ld, CIFTS FTB 0.6.2 has %ld\n", what, actual,
                expected);
        ++failures;
    }
}

#define SIZE(type, n) expect("sizeof(" #type ")", sizeof(type), (n))
/* Offset and size of one field. */
#define FIELD(type, field, off, n)                                               \
    do {                                                                         \
        expect("offsetof(" #type ", " #field ")", offsetof(type, field), (off)); \
        expect("sizeof(" #type "." #field ")", sizeof(((type *)0)->field), (n)); \
    } while (0)
#define VALUE(name, v) expect_value(#name, (long)(name), (v))

/*
 * FTB_TAG appends `uint8_t len; char dynamic_data[138];` to FTB_receive_event_t
 * and FTB_event_t (so also to FTB_subscribe_handle_t, which holds an FTB_event_t).
 */
#ifdef FTB_TAG
#define TAG_AREA 138
#define RECEIVE_EVENT_SIZE 756     /* 617 + 1 + 138 = 756, already a multiple of 4 */
#define EVENT_SIZE 846             /* 707 + 1 + 138 = 846, already even */
#define SUBSCRIBE_HANDLE_SIZE 1058 /* 210 + 846 + 1 + 1 */
#else
#define RECEIVE_EVENT_SIZE 620     /* 617 bytes of fields, padded to pid_t's 4 */
#define EVENT_SIZE 708             /* 707 bytes of fields, padded to uint16_t's 2 */
#define SUBSCRIBE_HANDLE_SIZE 920  /* 210 + 708 + 1 + 1 */
#endif

static void check_ftb_def(void) {
    SIZE(FTB_eventspace_t, 64);
    SIZE(FTB_client_name_t, 16);
    SIZE(FTB_client_schema_ver_t, 8);
    SIZE(FTB_client_jobid_t, 16);
    SIZE(FTB_severity_t, 16);
    SIZE(FTB_event_name_t, 32);
    SIZE(FTB_hostip_t, 64);
    SIZE(FTB_subscription_style_t, 32);
    SIZE(FTB_pid_starttime_t, 32);

    SIZE(FTB_client_t, 140);
    FIELD(FTB_client_t, client_schema_ver, 0, 8);
    FIELD(FTB_client_t, event_space, 8, 64);
    FIELD(FTB_client_t, client_name, 72, 16);
    FIELD(FTB_client_t, client_jobid, 88, 16);
    FIELD(FTB_client_t, client_subscription_style, 104, 32);
    FIELD(FTB_client_t, client_polling_queue_len, 136, 4);

    SIZE(FTB_event_info_t, 48);
    FIELD(FTB_event_info_t, event_name, 0, 32);
    FIELD(FTB_event_info_t, severity, 32, 16);

    SIZE(FTB_event_properties_t, 369);
    FIELD(FTB_event_properties_t, event_type, 0, 1);
    FIELD(FTB_event_properties_t, event_payload, 1, 368);

    SIZE(FTB_location_id_t, 100);
    FIELD(FTB_location_id_t, hostname, 0, 64);
    FIELD(FTB_location_id_t, pid_starttime, 64, 32);
    FIELD(FTB_location_id_t, pid, 96, 4);

    SIZE(FTB_receive_event_t, RECEIVE_EVENT_SIZE);
    FIELD(FTB_receive_event_t, event_space, 0, 64);
    FIELD(FTB_receive_event_t, event_name, 64, 32);
    FIELD(FTB_receive_event_t, severity, 96, 16);
    FIELD(FTB_receive_event_t, client_jobid, 112, 16);
    FIELD(FTB_receive_event_t, client_name, 128, 16);
    FIELD(FTB_receive_event_t, client_extension, 144, 1);
    FIELD(FTB_receive_event_t, seqnum, 146, 2);
    FIELD(FTB_receive_event_t, incoming_src, 148, 100);
    FIELD(FTB_receive_event_t, event_type, 248, 1);
    FIELD(FTB_receive_event_t, event_payload, 249, 368);
#ifdef FTB_TAG
    FIELD(FTB_receive_event_t, len, 617, 1);
    FIELD(FTB_receive_event_t, dynamic_data, 618, TAG_AREA);
    SIZE(FTB_tag_t, 1);
    SIZE(FTB_tag_len_t, 1);
    expect("FTB_MAX_DYNAMIC_DATA_SIZE", FTB_MAX_DYNAMIC_DATA_SIZE, TAG_AREA);
#endif
}

static void check_ftb_client_lib_defs(void) {
    SIZE(FTB_client_id_t, 209);
    FIELD(FTB_client_id_t, region, 0, 64);
    FIELD(FTB_client_id_t, comp_cat, 64, 64);
    FIELD(FTB_client_id_t, comp, 128, 64);
    FIELD(FTB_client_id_t, client_name, 192, 16);
    FIELD(FTB_client_id_t, ext, 208, 1);

    SIZE(FTB_client_handle_t, 210);
    FIELD(FTB_client_handle_t, valid, 0, 1);
    FIELD(FTB_client_handle_t, client_id, 1, 209);

    SIZE(FTB_id_t, 312);
    FIELD(FTB_id_t, location_id, 0, 100);
    FIELD(FTB_id_t, client_id, 100, 209);

    SIZE(FTB_event_t, EVENT_SIZE);
    FIELD(FTB_event_t, region, 0, 64);
    FIELD(FTB_event_t, comp_cat, 64, 64);
    FIELD(FTB_event_t, comp, 128, 64);
    FIELD(FTB_event_t, event_name, 192, 32);
    FIELD(FTB_event_t, severity, 224, 16);
    FIELD(FTB_event_t, client_jobid, 240, 16);
    FIELD(FTB_event_t, client_name, 256, 16);
    FIELD(FTB_event_t, hostname, 272, 64);
    FIELD(FTB_event_t, seqnum, 336, 2);
    FIELD(FTB_event_t, event_type, 338, 1);
    FIELD(FTB_event_t, event_payload, 339, 368);
#ifdef FTB_TAG
    FIELD(FTB_event_t, len, 707, 1);
    FIELD(FTB_event_t, dynamic_data, 708, TAG_AREA);
#endif

    SIZE(FTB_subscribe_handle_t, SUBSCRIBE_HANDLE_SIZE);
    FIELD(FTB_subscribe_handle_t, client_handle, 0, 210);
    FIELD(FTB_subscribe_handle_t, subscription_event, 210, EVENT_SIZE);
    FIELD(FTB_subscribe_handle_t, subscription_type, 210 + EVENT_SIZE, 1);
    FIELD(FTB_subscribe_handle_t, valid, 211 + EVENT_SIZE, 1);

    /* Must fit in an event payload: response events carry one. */
    SIZE(FTB_event_handle_t, 360);
    FIELD(FTB_event_handle_t, event_name, 0, 32);
    FIELD(FTB_event_handle_t, severity, 32, 16);
    FIELD(FTB_event_handle_t, client_id, 48, 209);
    FIELD(FTB_event_handle_t, seqnum, 258, 2);
    FIELD(FTB_event_handle_t, location_id, 260, 100);
}

static void check_constants(void) {
    VALUE(FTB_SUCCESS, 0);
    VALUE(FTB_ERR_GENERAL, -1);
    VALUE(FTB_ERR_EVENTSPACE_FORMAT, -2);
    VALUE(FTB_ERR_SUBSCRIPTION_STYLE, -3);
    VALUE(FTB_ERR_INVALID_VALUE, -4);
    VALUE(FTB_ERR_DUP_CALL, -5);
    VALUE(FTB_ERR_NULL_POINTER, -6);
    VALUE(FTB_ERR_NOT_SUPPORTED, -7);
    VALUE(FTB_ERR_INVALID_FIELD, -8);
    VALUE(FTB_ERR_INVALID_HANDLE, -9);
    VALUE(FTB_ERR_DUP_EVENT, -10);
    VALUE(FTB_ERR_INVALID_SCHEMA_FILE, -11);
    VALUE(FTB_ERR_INVALID_EVENT_NAME, -12);
    VALUE(FTB_ERR_INVALID_EVENT_TYPE, -13);
    VALUE(FTB_ERR_SUBSCRIPTION_STR, -14);
    VALUE(FTB_ERR_FILTER_ATTR, -15);
    VALUE(FTB_ERR_FILTER_VALUE, -16);
    VALUE(FTB_GOT_NO_EVENT, -17);
    VALUE(FTB_FAILURE, -18);
    VALUE(FTB_ERR_INVALID_PARAMETER, -19);
    VALUE(FTB_ERR_NETWORK_GENERAL, -20);
    VALUE(FTB_ERR_NETWORK_NO_ROUTE, -21);
#ifdef FTB_TAG
    VALUE(FTB_ERR_TAG_NO_SPACE, -22);
    VALUE(FTB_ERR_TAG_CONFLICT, -23);
    VALUE(FTB_ERR_TAG_NOT_FOUND, -24);
#endif
    VALUE(FTB_SUBSCRIPTION_NONE, 0);
    VALUE(FTB_SUBSCRIPTION_POLLING, 1);
    VALUE(FTB_SUBSCRIPTION_NOTIFY, 2);
    VALUE(FTB_DEFAULT_POLLING_Q_LEN, 64);
    VALUE(FTB_MAX_CLIENTSCHEMA_VER, 8);
    VALUE(FTB_MAX_EVENTSPACE, 64);
    VALUE(FTB_MAX_CLIENT_NAME, 16);
    VALUE(FTB_MAX_CLIENT_JOBID, 16);
    VALUE(FTB_MAX_EVENT_NAME, 32);
    VALUE(FTB_MAX_SEVERITY, 16);
    VALUE(FTB_MAX_HOST_ADDR, 64);
    VALUE(FTB_MAX_PID_TIME, 32);
    VALUE(FTB_MAX_PAYLOAD_DATA, 368);
    VALUE(FTB_MAX_SUBSCRIPTION_STYLE, 32);
    VALUE(FTB_EVENT_SIZE, 720);
    VALUE(FTB_ERR_HANDLE_NONE, 0);
    VALUE(FTB_ERR_HANDLE_NOTIFICATION, 1);
    VALUE(FTB_ERR_HANDLE_RECOVER, 2);
}

int main(void) {
    check_ftb_def();
    check_ftb_client_lib_defs();
    check_constants();
    return failures == 0 ? 0 : 1;
}
