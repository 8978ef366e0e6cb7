/* ucpself K N: known UCP traffic below MPI for tests/integration/wire.sh.
 * An MPI program (so that libhopscope.so records and the wire library
 * writes) that opens a UCP context of its own (UCX's self transport):
 *   - a thread that makes no MPI call polls an idle worker of its own with
 *     exactly K ucp_worker_progress calls (none makes progress);
 *   - the main thread posts a stream receive of N bytes on an endpoint to
 *     its own worker, then a stream send of N bytes on it, and progresses
 *     until both completed (the receive completes in its callback);
 *   - callbacks with user data (tags 0x71..0x73): a tag receive cancelled
 *     with ucp_request_cancel; a tag send of 100000 bytes (rendezvous)
 *     released with ucp_request_free before it completed (UCP then drops
 *     its callback), then received;
 *     on a worker in multi-thread mode, a tag receive of 3000 bytes posted
 *     by the main thread and completed by a second thread that sends the
 *     message and progresses the worker (the callback runs there).  Each
 *     callback checks that it got its own user data and status.
 * Prints what it received. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

static void die(const char *what, ucs_status_t st)
{
    fprintf(stderr, "ucpself: %s: %s\n", what, ucs_status_string(st));
    exit(1);
}

static ucp_worker_h mkworker(ucp_context_h ctx)
{
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    ucp_worker_h w;
    ucs_status_t st = ucp_worker_create(ctx, &wp, &w);
    if (st != UCS_OK)
        die("worker", st);
    return w;
}

static ucp_worker_h idle;
static long polls;
static void *poller(void *arg)
{
    (void)arg;
    unsigned made = 0;
    for (long i = 0; i < polls; i++)
        made += ucp_worker_progress(idle);
    return made ? (void *)1 : NULL;
}

static size_t got_len;
static int recv_done, send_done;
static void recv_cb(void *req, ucs_status_t st, size_t length, void *ud)
{
    (void)req;
    (void)ud;
    if (st != UCS_OK)
        die("stream receive", st);
    got_len = length;
    recv_done = 1;
}
static void send_cb(void *req, ucs_status_t st, void *ud)
{
    (void)req;
    (void)ud;
    if (st != UCS_OK)
        die("stream send", st);
    send_done = 1;
}

/* The callbacks of the user-data checks: ud points at its case's flag. */
static int ud_bad;
static volatile int c_cancel, c_freed, c_recv, c_thread_recv;
static void tag_recv_cb(void *req, ucs_status_t st, const ucp_tag_recv_info_t *info, void *ud)
{
    (void)req;
    volatile int *flag = ud;
    if (flag == &c_cancel) {
        if (st != UCS_ERR_CANCELED)
            ud_bad = 1;
    } else if (flag == &c_recv || flag == &c_thread_recv) {
        if (st != UCS_OK || !info ||
            info->length != (flag == &c_recv ? 100000u : 3000u))
            ud_bad = 1;
    } else {
        ud_bad = 1;
    }
    if (flag == &c_cancel || flag == &c_recv || flag == &c_thread_recv)
        *flag = 1;
}
static void tag_send_cb(void *req, ucs_status_t st, void *ud)
{
    (void)req;
    if (ud != &c_freed || st != UCS_OK)
        ud_bad = 1;
    c_freed = 1;
}

typedef struct tsend {
    ucp_worker_h w;
    ucp_ep_h ep;
    const char *buf;
} tsend;
static void *sender(void *arg)
{
    tsend *t = arg;
    ucp_request_param_t p = { .op_attr_mask = 0 };
    ucs_status_ptr_t s = ucp_tag_send_nbx(t->ep, t->buf, 3000, 0x73, &p);
    if (UCS_PTR_IS_ERR(s))
        die("thread send", UCS_PTR_STATUS(s));
    while (!c_thread_recv || (s && ucp_request_check_status(s) == UCS_INPROGRESS))
        ucp_worker_progress(t->w);
    if (s)
        ucp_request_free(s);
    return NULL;
}

static ucp_ep_h self_ep(ucp_worker_h w, ucp_address_t **addr)
{
    size_t alen;
    ucs_status_t st = ucp_worker_get_address(w, addr, &alen);
    if (st != UCS_OK)
        die("address", st);
    ucp_ep_params_t ep_p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = *addr };
    ucp_ep_h ep;
    if ((st = ucp_ep_create(w, &ep_p, &ep)) != UCS_OK)
        die("ep", st);
    return ep;
}

static void close_ep(ucp_worker_h w, ucp_ep_h ep)
{
    ucp_request_param_t cp = { .op_attr_mask = 0 };
    ucs_status_ptr_t c = ucp_ep_close_nbx(ep, &cp);
    while (UCS_PTR_IS_PTR(c) && ucp_request_check_status(c) == UCS_INPROGRESS)
        ucp_worker_progress(w);
    if (UCS_PTR_IS_PTR(c))
        ucp_request_free(c);
}

/* The three user-data cases (see the top). */
static void user_data_cases(ucp_context_h ctx, ucp_worker_h w, ucp_ep_h ep)
{
    static char big[100000], got[100000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)(i * 13 + 5);
    ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.recv = tag_recv_cb, .user_data = (void *)&c_cancel };
    /* a receive nothing will match, cancelled */
    ucs_status_ptr_t r = ucp_tag_recv_nbx(w, got, 8, 0x71, ~0ull, &rp);
    if (!UCS_PTR_IS_PTR(r))
        die("recv to cancel", UCS_PTR_STATUS(r));
    ucp_request_cancel(w, r);
    while (!c_cancel)
        ucp_worker_progress(w);
    ucp_request_free(r);
    /* a rendezvous send released before it completed */
    ucp_request_param_t sp = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_USER_DATA,
                               .cb.send = tag_send_cb, .user_data = (void *)&c_freed };
    ucs_status_ptr_t s = ucp_tag_send_nbx(ep, big, sizeof big, 0x72, &sp);
    if (UCS_PTR_IS_ERR(s))
        die("send to free", UCS_PTR_STATUS(s));
    if (s == NULL)
        die("send to free", UCS_ERR_NO_PROGRESS);   /* completed at once: not the case */
    ucp_request_free(s);
    rp.user_data = (void *)&c_recv;
    r = ucp_tag_recv_nbx(w, got, sizeof got, 0x72, ~0ull, &rp);
    if (UCS_PTR_IS_ERR(r))
        die("recv of the freed send", UCS_PTR_STATUS(r));
    if (r == NULL)
        c_recv = 1;
    while (!c_recv)
        ucp_worker_progress(w);
    for (int i = 0; i < 1000; i++)   /* a freed request's callback, if UCP made one */
        ucp_worker_progress(w);
    if (r)
        ucp_request_free(r);
    int intact = memcmp(big, got, sizeof big) == 0;
    /* a callback on another thread */
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_MULTI };
    ucp_worker_h mw;
    ucs_status_t st = ucp_worker_create(ctx, &wp, &mw);
    if (st != UCS_OK)
        die("multi-thread worker", st);
    ucp_address_t *maddr;
    ucp_ep_h mep = self_ep(mw, &maddr);
    rp.user_data = (void *)&c_thread_recv;
    r = ucp_tag_recv_nbx(mw, got, 3000, 0x73, ~0ull, &rp);
    if (!UCS_PTR_IS_PTR(r))
        die("recv for the thread", UCS_PTR_STATUS(r));
    tsend t = { mw, mep, big };
    pthread_t th;
    pthread_create(&th, NULL, sender, &t);
    pthread_join(th, NULL);
    ucp_request_free(r);
    intact = intact && memcmp(big, got, 3000) == 0;
    close_ep(mw, mep);
    ucp_worker_release_address(mw, maddr);
    ucp_worker_destroy(mw);
    printf("ucpself: user data: cancel %d, freed send's callback %d, its data %s, other thread %d; "
           "%s\n", c_cancel, c_freed, intact ? "intact" : "DAMAGED", c_thread_recv,
           ud_bad ? "a callback got the wrong user data or status" : "every callback got its own");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    polls = argc > 1 ? atol(argv[1]) : 1000;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 4096;
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES,
                         .features = UCP_FEATURE_TAG | UCP_FEATURE_STREAM };
    ucp_config_t *cfg;
    ucp_context_h ctx;
    ucs_status_t st;
    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        die("config", st);
    ucp_config_modify(cfg, "TLS", "self");
    if ((st = ucp_init(&prm, cfg, &ctx)) != UCS_OK)
        die("init", st);
    ucp_config_release(cfg);

    idle = mkworker(ctx);
    pthread_t th;
    void *made;
    pthread_create(&th, NULL, poller, NULL);
    pthread_join(th, &made);

    ucp_worker_h w = mkworker(ctx);
    ucp_address_t *addr;
    size_t alen;
    if ((st = ucp_worker_get_address(w, &addr, &alen)) != UCS_OK)
        die("address", st);
    ucp_ep_params_t ep_p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = addr };
    ucp_ep_h ep;
    if ((st = ucp_ep_create(w, &ep_p, &ep)) != UCS_OK)
        die("ep", st);
    char *sb = malloc(n), *rb = calloc(1, n);
    for (size_t i = 0; i < n; i++)
        sb[i] = (char)(i * 7 + 1);
    size_t len = 0;
    ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                               UCP_OP_ATTR_FIELD_DATATYPE |
                                               UCP_OP_ATTR_FIELD_FLAGS,
                               .cb.recv_stream = recv_cb, .datatype = ucp_dt_make_contig(1),
                               .flags = UCP_STREAM_RECV_FLAG_WAITALL };
    ucs_status_ptr_t r = ucp_stream_recv_nbx(ep, rb, n, &len, &rp);
    if (UCS_PTR_IS_ERR(r))
        die("stream_recv", UCS_PTR_STATUS(r));
    if (r == NULL) {
        got_len = len;
        recv_done = 1;
    }
    ucp_request_param_t sp = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
                               .cb.send = send_cb };
    ucs_status_ptr_t s = ucp_stream_send_nbx(ep, sb, n, &sp);
    if (UCS_PTR_IS_ERR(s))
        die("stream_send", UCS_PTR_STATUS(s));
    if (s == NULL)
        send_done = 1;
    while (!recv_done || !send_done)
        ucp_worker_progress(w);
    if (r)
        ucp_request_free(r);
    if (s)
        ucp_request_free(s);
    printf("ucpself: %ld idle polls (%s), stream of %zu bytes received %s\n", polls,
           made ? "some made progress" : "none made progress", got_len,
           got_len == n && memcmp(sb, rb, n) == 0 ? "intact" : "DAMAGED");
    user_data_cases(ctx, w, ep);
    close_ep(w, ep);
    ucp_worker_release_address(w, addr);
    ucp_worker_destroy(w);
    ucp_worker_destroy(idle);
    ucp_cleanup(ctx);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
