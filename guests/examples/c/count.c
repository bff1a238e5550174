/* A C guest: counts the lines of each file in a directory of the workspace, prints them and
 * writes them to LINES.txt beside them.
 *
 * Built for wasm32-wasip1 (WASI 0.1) with Debian 12's clang, lld and wasi-libc, it is a core
 * module, not a component: the host adapts it with wasmtime's preview 1 adapter, and its files
 * are the workspace's through wasi:filesystem as for any guest.
 *
 *     clang --target=wasm32-wasi -O2 -o count.wasm guests/examples/c/count.c
 *     computer run count.wasm -- /workspace/notes
 *
 * Exit status: 0, 1 when the directory cannot be read, 2 on a usage error (the adapter passes
 * the whole status on, not only success or failure). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of PATH (a last line without a newline counts), or -1 with errno set. */
static long count_lines(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  long lines = 0;
  int c, last = '\n';
  while ((c = getc(f)) != EOF) {
    if (c == '\n') lines++;
    last = c;
  }
  if (last != '\n') lines++;
  fclose(f);
  return lines;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: count DIR\n");
    return 2;
  }
  /* wasi-libc starts in `/`; the host passes the working directory in PWD. */
  const char *pwd = getenv("PWD");
  if (pwd) chdir(pwd);
  const char *dir = argv[1];
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "count: %s: %s\n", dir, strerror(errno));
    return 1;
  }
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.' || strcmp(e->d_name, "LINES.txt") == 0) continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);

  char path[4096];
  snprintf(path, sizeof path, "%s/LINES.txt", dir);
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "count: %s: %s\n", path, strerror(errno));
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    long lines = count_lines(path);
    if (lines < 0) {
      fprintf(stderr, "count: %s: %s\n", path, strerror(errno));
      continue;
    }
    printf("%6ld %s\n", lines, names[i]);
    fprintf(out, "%6ld %s\n", lines, names[i]);
  }
  fclose(out);
  return 0;
}
