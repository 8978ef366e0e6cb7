/* ucpcost OP N: the cost of one UCP call, for bench/wire_overhead.sh.  An
 * MPI program (so that libhopscope.so records and the wire library writes
 * as in a real run) that, after MPI_Init, opens a UCP context of its own
 * with an endpoint to itself (UCX's self transport: the call does the
 * work of the API, no network) and times 30 passes of N calls, printing
 * the fastest pass in ns per call:
 *   put    ucp_put_nbi of 8 bytes (completes at once on self)
 *   tag    ucp_tag_send_nbx of 0 bytes + the ucp_tag_recv_nbx that takes it
 *          (two calls; the figure is per call)
 *   progress  ucp_worker_progress on the idle worker (nothing to do)
 *   tagcb SIZE  as tag, SIZE bytes, the send with a completion callback
 *          (a send UCP does not complete in the posting call then goes
 *          through the wire library's callback trampoline)
 * A second figure follows on the same line: the process's CPU time (user +
 * system, CLOCK_PROCESS_CPUTIME_ID) over all 30 passes per call, which
 * other tenants of a loaded machine disturb less than the fastest pass. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, ucs_status_t st)
{
    fprintf(stderr, "ucpcost: %s: %s\n", what, ucs_status_string(st));
    exit(1);
}

static void send_cb(void *req, ucs_status_t st, void *user)
{
    (void)req, (void)st, (void)user;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *op = argc > 1 ? argv[1] : "put";
    long n = argc > 2 ? atol(argv[2]) : 100000;
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES,
                         .features = UCP_FEATURE_TAG | UCP_FEATURE_RMA };
    ucp_config_t *cfg;
    ucp_context_h ctx;
    ucs_status_t st;
    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        die("config", st);
    ucp_config_modify(cfg, "TLS", "self");
    if ((st = ucp_init(&prm, cfg, &ctx)) != UCS_OK)
        die("init", st);
    ucp_config_release(cfg);
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    ucp_worker_h w;
    if ((st = ucp_worker_create(ctx, &wp, &w)) != UCS_OK)
        die("worker", st);
    ucp_address_t *addr;
    size_t alen;
    if ((st = ucp_worker_get_address(w, &addr, &alen)) != UCS_OK)
        die("address", st);
    ucp_ep_params_t ep_p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = addr };
    ucp_ep_h ep;
    if ((st = ucp_ep_create(w, &ep_p, &ep)) != UCS_OK)
        die("ep", st);
    static char buf[4096], dst[4096];
    ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                              UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                .address = dst, .length = sizeof dst };
    ucp_mem_h mh;
    if ((st = ucp_mem_map(ctx, &mp, &mh)) != UCS_OK)
        die("mem_map", st);
    void *rk_buf;
    size_t rk_len;
    ucp_rkey_h rkey;
    if ((st = ucp_rkey_pack(ctx, mh, &rk_buf, &rk_len)) != UCS_OK ||
        (st = ucp_ep_rkey_unpack(ep, rk_buf, &rkey)) != UCS_OK)
        die("rkey", st);
    int tag = strcmp(op, "tag") == 0, prog = strcmp(op, "progress") == 0;
    /* tagcb: a send of SIZE bytes (argv[3]) with a completion callback, so
     * a send that does not complete in its posting call goes through the
     * wire library's callback trampoline (and its protocol query) */
    int tagcb = strcmp(op, "tagcb") == 0;
    size_t len = tagcb && argc > 3 ? (size_t)atol(argv[3]) : 0;
    char *big = tagcb ? calloc(2, len ? len : 1) : NULL;
    if (tagcb && !big)
        die("calloc", UCS_ERR_NO_MEMORY);
    tag |= tagcb;
    ucp_request_param_t rp = { .op_attr_mask = tagcb ? UCP_OP_ATTR_FIELD_CALLBACK : 0,
                               .cb.send = send_cb };
    ucp_tag_recv_info_t info = { 0 };
    ucp_request_param_t rrp = { .op_attr_mask = UCP_OP_ATTR_FIELD_RECV_INFO,
                                .recv_info.tag_info = &info };
    double best = 1e300, c0 = cpu_now();
    for (int pass = 0; pass < 30; pass++) {
        double t0 = now();
        for (long i = 0; i < n; i++) {
            if (prog) {
                ucp_worker_progress(w);
            } else if (tag) {
                /* send, then receive, then wait for both: a rendezvous send
                 * completes only once its receive is posted */
                ucs_status_ptr_t s = ucp_tag_send_nbx(ep, tagcb ? big : buf, len, 7, &rp);
                ucs_status_ptr_t r = ucp_tag_recv_nbx(w, tagcb ? big + len : dst, len, 7, ~0ull,
                                                      &rrp);
                if (UCS_PTR_IS_PTR(s)) {
                    while (ucp_request_check_status(s) == UCS_INPROGRESS)
                        ucp_worker_progress(w);
                    ucp_request_free(s);
                }
                if (UCS_PTR_IS_PTR(r)) {
                    while (ucp_request_check_status(r) == UCS_INPROGRESS)
                        ucp_worker_progress(w);
                    ucp_request_free(r);
                }
            } else {
                st = ucp_put_nbi(ep, buf, 8, (uint64_t)(uintptr_t)dst, rkey);
                if (UCS_STATUS_IS_ERR(st))
                    die("put", st);
            }
        }
        double dt = (now() - t0) / (double)n / (tag ? 2 : 1);
        if (dt < best)
            best = dt;
        ucp_worker_flush(w);
    }
    double cpu = (cpu_now() - c0) / (30.0 * (double)n) / (tag ? 2 : 1);
    printf("%.2f %.2f\n", best, cpu);
    free(big);
    ucp_rkey_destroy(rkey);
    ucp_rkey_buffer_release(rk_buf);
    ucp_mem_unmap(ctx, mh);
    ucp_ep_destroy(ep);
    ucp_worker_release_address(w, addr);
    ucp_worker_destroy(w);
    ucp_cleanup(ctx);
    MPI_Finalize();
    return 0;
}
