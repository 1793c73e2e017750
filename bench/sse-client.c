/*
 * A minimal SSE load client for bench/timing.mjs: opens N HTTP connections
 * over a ramp, sends one request on each, and prints a line "stream
 * microseconds kind" for what it sees on each connection:
 *
 *   q  the request was written whole
 *   r  the first bytes of the response arrived with status 200 (f: another status)
 *   e  an SSE event frame ended ("\n\n")
 *   h  a heartbeat frame (": keep-alive") ended
 *   d  the "data: [DONE]" frame ended
 *   x  the connection closed (by the server, or an error)
 *   t  the client gave up on the connection at the deadline
 *
 * Times are from the client's start, on CLOCK_MONOTONIC, taken once per
 * epoll_wait batch. It does no HTTP parsing beyond the status code and finding
 * frame ends, so the arrival times measure the server, not the client. The
 * same binary drives our server and the floor in one run.
 *
 * Usage: sse-client HOST PORT N RAMP_MS REQUEST_FILE DEADLINE_MS
 *   REQUEST_FILE holds the raw request; "{SEED}" in it is replaced by the stream index.
 *   DEADLINE_MS: connections still open this long after the start are closed and marked t.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

typedef struct {
  int fd;
  char prev[2];
  size_t sent; /* bytes of the request written so far */
  size_t len;
  char *req;
  int open;
  size_t got; /* bytes of the response read so far (up to the status code) */
  char status[12];
} conn;

static char out[1 << 20];
static size_t outlen = 0;

static void emit(unsigned s, double t, char kind) {
  outlen += (size_t)sprintf(out + outlen, "%u %.1f %c\n", s, t, kind);
  if (outlen > sizeof out - 64) {
    fwrite(out, 1, outlen, stdout);
    outlen = 0;
  }
}

int main(int argc, char **argv) {
  if (argc < 7) { fprintf(stderr, "usage: %s HOST PORT N RAMP_MS REQUEST_FILE DEADLINE_MS\n", argv[0]); return 2; }
  const char *host = argv[1];
  int port = atoi(argv[2]), n = atoi(argv[3]);
  double ramp_us = atof(argv[4]) * 1000.0;
  double deadline_us = atof(argv[6]) * 1000.0;
  FILE *f = fopen(argv[5], "rb");
  if (!f) { perror("request file"); return 2; }
  static char tmpl[65536];
  size_t tlen = fread(tmpl, 1, sizeof tmpl - 1, f);
  tmpl[tlen] = 0;
  fclose(f);

  conn *c = calloc((size_t)n, sizeof *c);
  int ep = epoll_create1(0);
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
  inet_pton(AF_INET, host, &addr.sin_addr);
  static char buf[1 << 16];
  double start = now_us();
  int opened = 0, closed = 0;

  while (closed < n) {
    double t = now_us();
    if (t - start >= deadline_us) {
      for (int i = 0; i < opened; i++)
        if (c[i].open) { emit((unsigned)i, t - start, 't'); close(c[i].fd); c[i].open = 0; }
      break;
    }
    while (opened < n && t - start >= ramp_us * opened / n) {
      conn *k = &c[opened];
      k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      int one = 1;
      setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      connect(k->fd, (struct sockaddr *)&addr, sizeof addr);
      char seed[32];
      snprintf(seed, sizeof seed, "%d", opened);
      k->req = malloc(tlen + 64);
      char *p = strstr(tmpl, "{SEED}");
      if (p) k->len = (size_t)sprintf(k->req, "%.*s%s%s", (int)(p - tmpl), tmpl, seed, p + 6);
      else { memcpy(k->req, tmpl, tlen); k->len = tlen; }
      struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.u32 = (unsigned)opened };
      epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
      k->open = 1;
      opened++;
    }
    int timeout = opened < n ? 1 : 100;
    struct epoll_event evs[256];
    int m = epoll_wait(ep, evs, 256, timeout);
    double when = now_us() - start;
    for (int i = 0; i < m; i++) {
      unsigned s = evs[i].data.u32;
      conn *k = &c[s];
      if (!k->open) continue;
      if ((evs[i].events & EPOLLOUT) && k->sent < k->len) {
        ssize_t w = write(k->fd, k->req + k->sent, k->len - k->sent);
        if (w > 0) k->sent += (size_t)w;
        if (k->sent == k->len) {
          emit(s, when, 'q');
          struct epoll_event ev = { .events = EPOLLIN, .data.u32 = s };
          epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
        }
      }
      if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          ssize_t r = read(k->fd, buf, sizeof buf);
          if (r > 0) {
            for (ssize_t j = 0; j < r; j++) {
              if (k->got < sizeof k->status) {
                k->status[k->got++] = buf[j];
                /* "HTTP/1.1 200": the status code is bytes 9..11 */
                if (k->got == sizeof k->status) emit(s, when, memcmp(k->status + 9, "200", 3) == 0 ? 'r' : 'f');
              }
              if (buf[j] == '\n' && k->prev[1] == '\n') emit(s, when, k->prev[0] == 'e' ? 'h' : k->prev[0] == ']' ? 'd' : 'e');
              k->prev[0] = k->prev[1];
              k->prev[1] = buf[j];
            }
            continue;
          }
          if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
            close(k->fd);
            k->open = 0;
            closed++;
            emit(s, when, 'x');
          }
          break;
        }
      }
    }
  }
  fwrite(out, 1, outlen, stdout);
  return 0;
}
