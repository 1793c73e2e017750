/*
 * A minimal SSE load client for bench/timing.mjs: opens N HTTP connections
 * over a ramp, sends one request on each, and prints, for every SSE frame
 * received, "stream microseconds kind" (kind: e = event, h = heartbeat,
 * d = [DONE]). It does no HTTP parsing beyond finding frame ends, so the
 * arrival times measure the server, not the client.
 *
 * Usage: sse-client HOST PORT N RAMP_MS REQUEST_FILE
 *   REQUEST_FILE holds the raw request; "{SEED}" in it is replaced by the stream index.
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

typedef struct { int fd; char prev[2]; int sent; size_t len; char *req; int open; } conn;

int main(int argc, char **argv) {
  if (argc < 6) { fprintf(stderr, "usage: %s HOST PORT N RAMP_MS REQUEST_FILE\n", argv[0]); return 2; }
  const char *host = argv[1];
  int port = atoi(argv[2]), n = atoi(argv[3]);
  double ramp_us = atof(argv[4]) * 1000.0;
  FILE *f = fopen(argv[5], "rb");
  if (!f) { perror("request file"); return 2; }
  static char tmpl[65536];
  size_t tlen = fread(tmpl, 1, sizeof tmpl - 1, f);
  tmpl[tlen] = 0;
  fclose(f);

  conn *c = calloc(n, sizeof *c);
  int ep = epoll_create1(0);
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(port) };
  inet_pton(AF_INET, host, &addr.sin_addr);
  static char buf[1 << 16];
  static char out[1 << 20];
  size_t outlen = 0;
  double start = now_us();
  int opened = 0, closed = 0;

  while (closed < n) {
    double t = now_us();
    while (opened < n && t - start >= ramp_us * opened / n) {
      conn *k = &c[opened];
      k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      int one = 1;
      setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      connect(k->fd, (struct sockaddr *)&addr, sizeof addr);
      char seed[32];
      snprintf(seed, sizeof seed, "%d", opened);
      /* substitute {SEED} */
      k->req = malloc(tlen + 64);
      char *p = strstr(tmpl, "{SEED}");
      if (p) k->len = (size_t)sprintf(k->req, "%.*s%s%s", (int)(p - tmpl), tmpl, seed, p + 6);
      else { memcpy(k->req, tmpl, tlen); k->len = tlen; }
      struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.u32 = (unsigned)opened };
      epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
      k->open = 1;
      opened++;
    }
    int timeout = opened < n ? 1 : 1000;
    struct epoll_event evs[256];
    int m = epoll_wait(ep, evs, 256, timeout);
    double when = now_us();
    for (int i = 0; i < m; i++) {
      conn *k = &c[evs[i].data.u32];
      if ((evs[i].events & EPOLLOUT) && !k->sent) {
        ssize_t w = write(k->fd, k->req, k->len);
        if (w == (ssize_t)k->len) {
          k->sent = 1;
          struct epoll_event ev = { .events = EPOLLIN, .data.u32 = evs[i].data.u32 };
          epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
        }
      }
      if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          ssize_t r = read(k->fd, buf, sizeof buf);
          if (r > 0) {
            for (ssize_t j = 0; j < r; j++) {
              if (buf[j] == '\n' && k->prev[1] == '\n') {
                char kind = k->prev[0] == 'e' ? 'h' : k->prev[0] == ']' ? 'd' : 'e';
                outlen += (size_t)sprintf(out + outlen, "%u %.1f %c\n", evs[i].data.u32, when - start, kind);
                if (outlen > sizeof out - 64) { fwrite(out, 1, outlen, stdout); outlen = 0; }
              }
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
          }
          break;
        }
      }
    }
  }
  fwrite(out, 1, outlen, stdout);
  return 0;
}
