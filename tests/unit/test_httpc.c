/*
 * tests/unit/test_httpc.c - the command line's HTTP client (cli/httpc.h)
 * against a one-shot server on a loopback socket that answers with fixed
 * bytes: a plain answer, a chunked one, one over the size cap, one that
 * is not HTTP, a server that never answers, and nothing listening.
 */
#include "tests/support/check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/httpc.h"

struct fake {
    int fd;
    long port;
    const char *answer; /* NULL: read the request, never answer */
    char request[1024];
    pthread_t thread;
};

static void *
fake_main(void *arg)
{
    struct fake *f = arg;
    int c = accept(f->fd, NULL, NULL);
    size_t got = 0;
    if (c < 0)
        return NULL;
    while (got + 1 < sizeof f->request && !strstr(f->request, "\r\n\r\n")) {
        ssize_t n = recv(c, f->request + got, sizeof f->request - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        f->request[got] = '\0';
    }
    if (f->answer) {
        send(c, f->answer, strlen(f->answer), MSG_NOSIGNAL);
        close(c);
    } else {
        usleep(600 * 1000); /* past the client's deadline */
        close(c);
    }
    return NULL;
}

static void
fake_start(struct fake *f, const char *answer)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    memset(f, 0, sizeof *f);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(f->fd >= 0);
    assert_int_equal(bind(f->fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(f->fd, 1), 0);
    assert_int_equal(getsockname(f->fd, (struct sockaddr *)&sa, &len), 0);
    f->port = ntohs(sa.sin_port);
    f->answer = answer;
    pthread_create(&f->thread, NULL, fake_main, f);
}

static void
fake_stop(struct fake *f)
{
    pthread_join(f->thread, NULL);
    close(f->fd);
}

static struct httpc_request
get(long port, const char *body)
{
    struct httpc_request rq = {.addr = "127.0.0.1",
                               .port = port,
                               .method = body ? "POST" : "GET",
                               .path = "/v1/x?y=1",
                               .headers = "Authorization: Bearer t\r\n",
                               .body = body,
                               .body_len = body ? strlen(body) : 0,
                               .timeout_ms = 300,
                               .max_answer = 256};
    return rq;
}

static void
test_httpc_plain_and_chunked(void **state)
{
    (void)state;
    struct fake f;
    struct httpc_answer a;
    char why[256];
    struct httpc_request rq = get(0, "{\"a\":1}");

    fake_start(&f, "HTTP/1.1 201 Created\r\nContent-Length: 7\r\n"
                   "Connection: close\r\n\r\n{\"x\":2}");
    rq.port = f.port;
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), 0);
    fake_stop(&f);
    assert_int_equal(a.status, 201);
    assert_string_equal(a.status_line, "HTTP/1.1 201 Created");
    assert_int_equal(a.body_len, 7);
    assert_string_equal(a.body, "{\"x\":2}");
    /* What was sent: the request line, the caller's header, the body. */
    assert_non_null(strstr(f.request, "POST /v1/x?y=1 HTTP/1.1\r\n"));
    assert_non_null(strstr(f.request, "\r\nAuthorization: Bearer t\r\n"));
    assert_non_null(strstr(f.request, "\r\nContent-Length: 7\r\n"));
    assert_non_null(strstr(f.request, "\r\nConnection: close\r\n\r\n"));
    httpc_answer_clear(&a);

    fake_start(&f, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                   "4\r\nabcd\r\na\r\n0123456789\r\n0\r\n\r\n");
    rq = get(f.port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), 0);
    fake_stop(&f);
    assert_null(strstr(f.request, "Content-Length"));
    assert_int_equal(a.status, 200);
    assert_int_equal(a.body_len, 14);
    assert_string_equal(a.body, "abcd0123456789");
    httpc_answer_clear(&a);
}

static void
test_httpc_failures(void **state)
{
    (void)state;
    struct fake f;
    struct httpc_answer a;
    char why[256], big[400];
    struct httpc_request rq;

    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "HTTP/1.1 200 OK\r\n\r\n", 19);
    fake_start(&f, big); /* 399 bytes over a cap of 256 */
    rq = get(f.port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    fake_stop(&f);
    assert_string_equal(why, "answer longer than 256 bytes");
    assert_null(a.text);

    fake_start(&f, "SSH-2.0-OpenSSH\r\n");
    rq = get(f.port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    fake_stop(&f);
    assert_string_equal(why, "not an HTTP answer: \"SSH-2.0-OpenSSH\"");

    fake_start(&f, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "zz\r\n");
    rq = get(f.port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    fake_stop(&f);
    assert_string_equal(why, "malformed chunked body");

    fake_start(&f, NULL); /* accepts, never answers: the 300 ms deadline */
    rq = get(f.port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    fake_stop(&f);
    assert_string_equal(why, "no complete answer in time");

    fake_start(&f, "HTTP/1.1 204 No Content\r\n\r\n");
    long port = f.port;
    rq = get(port, NULL);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), 0);
    fake_stop(&f); /* closed now: nothing listens on port */
    httpc_answer_clear(&a);
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    assert_non_null(strstr(why, "cannot connect: "));
    rq.addr = "localhost";
    assert_int_equal(httpc_exchange(&rq, &a, why, sizeof why), -1);
    assert_string_equal(why, "\"localhost\" is not an IPv4 address");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_httpc_plain_and_chunked),
        cmocka_unit_test(test_httpc_failures),
    };
    return cmocka_run_group_tests_name("httpc", tests, NULL, NULL);
}
