/*
 * FTB_Declare_publishable_events from a schema file (API_NOTES.md §4): the
 * file is read directly (no shell: a path with spaces works), comments and
 * line breaks do not matter, and each malformed file gives its error.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/integration/ftb05/test_agent.h"
#include "tests/integration/ftb05/test_harness.h"

static char dir[64];
static char path[128];

/* Writes text to a schema file in the test directory; returns its path. */
static const char *schema(const char *name, const char *text) {
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL) return "";
    fputs(text, f);
    fclose(f);
    return path;
}

static void remove_dir(void) {
    DIR *d = opendir(dir);
    struct dirent *entry;
    char file[400];
    if (d == NULL) return;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        snprintf(file, sizeof file, "%s/%s", dir, entry->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(dir);
}

static FTB_client_handle_t connect_watchdog(void) {
    FTB_client_t info;
    FTB_client_handle_t h;
    memset(&h, 0, sizeof h);
    ftb05_client_info(&info, "FTB.FTB_EXAMPLES.Watchdog", "wd", "", "FTB_SUBSCRIPTION_NONE", 0);
    CHECK_RC(FTB_Connect(&info, &h), FTB_SUCCESS);
    return h;
}

static int publishes(FTB_client_handle_t h, const char *name) {
    FTB_event_handle_t eh;
    return FTB_Publish(h, name, NULL, &eh);
}

static void valid_schema(void) {
    FTB_client_handle_t h = connect_watchdog();
    FTB_client_handle_t bad = h;
    FTB_event_handle_t eh;
    const char *file = schema("watch dog schema.ftb", /* a space: no shell involved */
                              "# Events of the watchdog\n"
                              "ignored_token start\n"
                              "ftb.ftb_examples.watchdog   # own space, any case\n"
                              "watch_dog_event   info\n"
                              "watch_dog_error   ERROR watch_dog_event fatal # duplicate: skipped\n"
                              "end\n"
                              "start FTB.FTB_EXAMPLES.WATCHDOG\n"
                              "split_across\n\n  warning\n"
                              "dropped_name end\n");
    bad.valid = 0;
    CHECK_RC(FTB_Declare_publishable_events(bad, file, NULL, 0), FTB_ERR_INVALID_HANDLE);
    REQUIRE_RC(FTB_Declare_publishable_events(h, file, NULL, 0), FTB_SUCCESS);
    CHECK_RC(FTB_Publish(h, "WATCH_DOG_EVENT", NULL, &eh), FTB_SUCCESS);
    CHECK(strcmp(eh.severity, "info") == 0);
    CHECK_RC(FTB_Publish(h, "watch_dog_error", NULL, &eh), FTB_SUCCESS);
    CHECK(strcmp(eh.severity, "ERROR") == 0);
    CHECK_RC(publishes(h, "split_across"), FTB_SUCCESS);
    /* A name followed by `end` is dropped. */
    CHECK_RC(publishes(h, "dropped_name"), FTB_ERR_INVALID_EVENT_NAME);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static void home_relative_path(void) {
    FTB_client_handle_t h = connect_watchdog();
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    schema("home.ftb", "start ftb.ftb_examples.watchdog from_home info end");
    setenv("HOME", dir, 1);
    CHECK_RC(FTB_Declare_publishable_events(h, "~/home.ftb", NULL, 0), FTB_SUCCESS);
    CHECK_RC(publishes(h, "from_home"), FTB_SUCCESS);
    if (home != NULL) {
        setenv("HOME", home, 1);
        free(home);
    }
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

static void invalid_schemas(void) {
    FTB_client_handle_t h = connect_watchdog();
    char text[8192];
    int i;

    CHECK_RC(FTB_Declare_publishable_events(h, "/nonexistent/schema.ftb", NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(FTB_Declare_publishable_events(h, schema("empty.ftb", ""), NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(FTB_Declare_publishable_events(h, schema("nostart.ftb", "# only\nwords here\n"), NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(FTB_Declare_publishable_events(
                 h, schema("open.ftb", "start ftb.ftb_examples.watchdog in_open_block info\n"), NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(publishes(h, "in_open_block"), FTB_SUCCESS); /* declared before the error */
    CHECK_RC(FTB_Declare_publishable_events(
                 h, schema("other.ftb", "start ftb.ftb_examples.other x info end\n"), NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(FTB_Declare_publishable_events(
                 h, schema("format.ftb", "start ftb.watchdog x info end\n"), NULL, 0),
             FTB_ERR_INVALID_SCHEMA_FILE);
    CHECK_RC(FTB_Declare_publishable_events(
                 h, schema("sev.ftb", "start ftb.ftb_examples.watchdog before info bad_sev loud end\n"),
                 NULL, 0),
             FTB_ERR_INVALID_FIELD);
    CHECK_RC(publishes(h, "before"), FTB_SUCCESS);
    CHECK_RC(FTB_Declare_publishable_events(
                 h,
                 schema("long.ftb",
                        "start ftb.ftb_examples.watchdog "
                        "a_name_of_thirty_two_characters_ info end\n"),
                 NULL, 0),
             FTB_ERR_INVALID_FIELD);
    CHECK_RC(FTB_Declare_publishable_events(
                 h, schema("chars.ftb", "start ftb.ftb_examples.watchdog bad-name info end\n"), NULL, 0),
             FTB_ERR_INVALID_FIELD);
    /* 2 declared so far (in_open_block, before); the 101st event is refused. */
    strcpy(text, "start ftb.ftb_examples.watchdog\n");
    for (i = 0; i < 98; ++i) sprintf(text + strlen(text), "ev%d info\n", i);
    strcat(text, "one_too_many info\nend\n");
    CHECK_RC(FTB_Declare_publishable_events(h, schema("many.ftb", text), NULL, 0), FTB_ERR_GENERAL);
    CHECK_RC(publishes(h, "ev97"), FTB_SUCCESS);
    CHECK_RC(publishes(h, "one_too_many"), FTB_ERR_INVALID_EVENT_NAME);
    CHECK_RC(FTB_Disconnect(h), FTB_SUCCESS);
}

int main(void) {
    strcpy(dir, "/tmp/ftb05-schema-XXXXXX");
    if (mkdtemp(dir) == NULL) return 1;
    if (ftb05_test_agent_start() != 0) return 1;
    RUN(valid_schema);
    RUN(home_relative_path);
    RUN(invalid_schemas);
    ftb05_test_agent_stop();
    remove_dir();
    return ftb05_test_result();
}
