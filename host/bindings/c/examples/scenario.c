/*
 * The bindings' shared scenario in C: write a file, exec in the isolate, stream output,
 * snapshot, fork, tool calls, an error for a missing file, a timeout named as a limit, and
 * (with --container) exec with "auto" falling back to the container.
 *
 *   cc -Iinclude examples/scenario.c -L<target>/debug -lcomputer -Wl,-rpath,<target>/debug
 *   ./a.out /tmp/dir [--container]
 *
 * Prints "ok: STEP" per step; exits 1 at the first failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "computer.h"

static int failures = 0;

#define CHECK(cond, step)                                                             \
    do {                                                                              \
        if (cond) {                                                                   \
            printf("ok: %s\n", step);                                                 \
        } else {                                                                      \
            const char *e = computer_last_error();                                    \
            fprintf(stderr, "FAILED: %s (last error: %s)\n", step, e ? e : "none");  \
            failures++;                                                               \
        }                                                                             \
    } while (0)

/* Collects streamed stdout, and counts the calls. */
struct sink {
    char text[256];
    size_t len;
    int calls;
};

static void on_output(void *user, int32_t stream, const uint8_t *data, size_t len) {
    struct sink *s = user;
    s->calls++;
    if (stream == 1 && s->len + len < sizeof s->text) {
        memcpy(s->text + s->len, data, len);
        s->len += len;
        s->text[s->len] = '\0';
    }
}

static int equals(const uint8_t *data, size_t len, const char *text) {
    return len == strlen(text) && memcmp(data, text, len) == 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [--container]\n", argv[0]);
        return 2;
    }
    char db[4096], copy_db[4096];
    snprintf(db, sizeof db, "%s/agent.db", argv[1]);
    snprintf(copy_db, sizeof copy_db, "%s/copy.db", argv[1]);

    ComputerWorkspace *ws = computer_open(db);
    CHECK(ws != NULL, "open");
    if (ws == NULL) return 1;

    const char *notes = "one\ntwo\nthree\n";
    CHECK(computer_write_file(ws, "/workspace/notes.md", (const uint8_t *)notes, strlen(notes)) == 0,
          "write a file");

    ComputerExecOptions isolate = {0};
    isolate.backend = "isolate";
    ComputerExecResult r;
    int rc = computer_exec(ws, "wc -l < notes.md && grep -c o notes.md", &isolate, &r);
    CHECK(rc == 0 && r.status == 0 && equals(r.stdout_data, r.stdout_len, "3\n2\n") && r.limit == NULL,
          "exec in the isolate");
    if (rc == 0) computer_exec_result_free(&r);

    struct sink s = {{0}, 0, 0};
    rc = computer_exec_stream(ws, "echo one; echo two >&2; echo three", NULL, on_output, &s, &r);
    CHECK(rc == 0 && strcmp(s.text, "one\nthree\n") == 0 && s.calls >= 2 &&
              equals(r.stderr_data, r.stderr_len, "two\n"),
          "stream output");
    if (rc == 0) computer_exec_result_free(&r);

    CHECK(computer_snapshot(ws, "before") == 0, "snapshot");
    const char *after = "after\n";
    computer_write_file(ws, "notes.md", (const uint8_t *)after, strlen(after));
    ComputerWorkspace *copy = computer_fork(ws, "before", copy_db);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK(copy != NULL && computer_read_file(copy, "notes.md", &data, &len) == 0 && equals(data, len, notes),
          "fork holds the snapshot");
    computer_bytes_free(data, len);
    computer_close(copy);

    char *listing = computer_list_dir(ws, "/workspace");
    CHECK(listing != NULL && strcmp(listing, "notes.md\n") == 0, "list a directory");
    computer_string_free(listing);

    char *tools = computer_tools_json(ws, "openai");
    CHECK(tools != NULL && strstr(tools, "\"name\":\"read\"") != NULL && strstr(tools, "\"parameters\"") != NULL,
          "tool definitions");
    computer_string_free(tools);
    char *text = computer_tool_call(ws, "read", "{\"path\": \"notes.md\"}");
    CHECK(text != NULL && strstr(text, "after") != NULL, "tool call");
    computer_string_free(text);
    text = computer_tool_call(ws, "read", "{\"path\": \"missing.txt\"}");
    CHECK(text == NULL && computer_last_errno() == ENOENT, "tool call on a missing file");

    CHECK(computer_read_file(ws, "nope/missing.txt", &data, &len) == -1 && computer_last_errno() == ENOENT &&
              strstr(computer_last_error(), "/workspace/nope/missing.txt") != NULL,
          "a missing file is ENOENT");

    ComputerExecOptions quick = {0};
    quick.timeout_ms = 500;
    rc = computer_exec(ws, "echo started; sleep 30", &quick, &r);
    CHECK(rc == 0 && r.status == 124 && r.limit != NULL && strcmp(r.limit, "timeout") == 0 &&
              equals(r.stdout_data, r.stdout_len, "started\n"),
          "a timeout is named as a limit");
    if (rc == 0) computer_exec_result_free(&r);

    ComputerExecOptions bad = {0};
    bad.backend = "vm";
    CHECK(computer_exec(ws, "true", &bad, &r) == -1 && computer_last_errno() == EINVAL, "a bad backend");

    /* Bad input from the caller is an error, never a crash. */
    CHECK(computer_open(NULL) == NULL && computer_last_errno() == EINVAL, "a NULL path");
    CHECK(computer_read_file(NULL, "x", &data, &len) == -1 && computer_last_errno() == EINVAL,
          "a NULL handle");
    CHECK(computer_tool_call(ws, "read", "not json") == NULL && computer_last_errno() == EINVAL,
          "tool arguments that are not JSON");
    CHECK(computer_write_file(ws, "/workspace/../../etc/x", (const uint8_t *)"x", 1) == -1 &&
              computer_last_errno() == ENOENT,
          "a path above / stays in the workspace");

    if (argc > 2 && strcmp(argv[2], "--container") == 0) {
        ComputerExecOptions slow = {0};
        slow.timeout_ms = 600000;
        rc = computer_exec(ws, "python3 -c 'print(6*7)'", &slow, &r);
        CHECK(rc == 0 && r.status == 0 && equals(r.stdout_data, r.stdout_len, "42\n"),
              "auto falls back to the container");
        if (rc == 0) computer_exec_result_free(&r);
    }

    computer_close(ws);
    return failures ? 1 : 0;
}
